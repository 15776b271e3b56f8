#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `chakra generate micro` equals ASTRA-sim's microbenchmark files byte for
# byte (4 collectives x 4/8/16 NPUs = 112 files), and the send/recv ring and
# broadcast forms are well formed and refuse to overwrite without --force.
set -u
. "$(dirname "$0")/../need.sh" && need_data data/astra-sim/microbenchmarks
exe=${CHAKRA_EXE:?}
src=${CHAKRA_SHARED:?}/data/astra-sim/microbenchmarks
tmp=$(mktemp -d /tmp/chakra-gen-micro-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
files=0
for coll in all_reduce all_gather reduce_scatter all_to_all; do
	for n in 4 8 16; do
		"$exe" generate micro --collective $coll --npus $n --size 1048576 -o "$tmp/$coll" || {
			echo "FAIL: generate $coll $n"; fail=1; continue; }
		r=0
		while [ $r -lt $n ]; do
			if cmp "$src/$coll/${n}npus_1MB/$coll.$r.et" "$tmp/$coll.$r.et"; then
				files=$((files + 1))
			else
				fail=1
			fi
			r=$((r + 1))
		done
		rm -f "$tmp"/$coll.*.et
	done
done
[ $files -eq 112 ] || { echo "FAIL: $files of 112 files equal"; fail=1; }

# Refuses to overwrite; --force replaces.
"$exe" generate micro --collective broadcast --npus 4 --size 4096 -o "$tmp/b" || fail=1
if "$exe" generate micro --collective broadcast --npus 4 --size 4096 -o "$tmp/b" 2>"$tmp/err"; then
	echo "FAIL: overwrote without --force"; fail=1
fi
grep -q "exists" "$tmp/err" || { echo "FAIL: no 'exists' message"; fail=1; }
"$exe" generate micro --collective broadcast --npus 4 --size 4096 -o "$tmp/b" --force || fail=1
"$exe" jsonize "$tmp/b.2.et" | grep -q '"name":"broadcast_4npus_4KB","type":"COMM_COLL_NODE"' ||
	{ echo "FAIL: broadcast node"; fail=1; }
"$exe" jsonize "$tmp/b.2.et" | grep -q '"name":"comm_type","kind":"int64","value":5' ||
	{ echo "FAIL: broadcast comm_type"; fail=1; }

# Ring: rank 2 of 4 sends to 3 and receives from 1.
"$exe" generate micro --send-recv-ring --npus 4 --size 1000 -o "$tmp/ring" || fail=1
j=$("$exe" jsonize "$tmp/ring.2.et")
echo "$j" | grep -q '"name":"comm_dst","kind":"int32","value":3' || { echo "FAIL: ring dst"; fail=1; }
echo "$j" | grep -q '"name":"comm_src","kind":"int32","value":1' || { echo "FAIL: ring src"; fail=1; }
echo "$j" | grep -q '"type":"COMM_SEND_NODE"' || { echo "FAIL: ring send"; fail=1; }
echo "$j" | grep -q '"type":"COMM_RECV_NODE"' || { echo "FAIL: ring recv"; fail=1; }

# Usage errors exit 2.
"$exe" generate micro --collective nope --npus 4 --size 1 -o "$tmp/x" 2>/dev/null
[ $? -eq 2 ] || { echo "FAIL: bad collective not a usage error"; fail=1; }
"$exe" generate micro --collective all_reduce --size 1 -o "$tmp/x" 2>/dev/null
[ $? -eq 2 ] || { echo "FAIL: missing --npus not a usage error"; fail=1; }
exit $fail
