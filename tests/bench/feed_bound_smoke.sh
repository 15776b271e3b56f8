#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Smoke run of tests/bench/feed_bound: all four stages see every node; on
# a generated trace (parents always earlier) no node is blocked, on the
# real chakra.0.et some are (its data deps name later nodes).
set -u
. "$(dirname "$0")/../need.sh" && need_data data/chakra/chakra.0.et.gz
B=${1:?feed_bound path}
C=${CHAKRA_EXE:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/feed-bound.XXXXXX") || exit 1
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
"$C" generate synthetic 20000 -o "$tmp/s.0.et" || fail "generate"
"$B" "$tmp/s.0.et" --repeat 1 > "$tmp/out.txt" || fail "exit status"
cat "$tmp/out.txt"
grep -q "^nodes      20000 " "$tmp/out.txt" || fail "node count"
for s in floor scan bound feed; do
	grep -q "^$s  *[0-9.]* s CPU .*x the floor" "$tmp/out.txt" || fail "$s line"
done
grep -q "^blocked    0 nodes" "$tmp/out.txt" || fail "generated trace: nothing blocked"
real="$CHAKRA_SHARED/data/chakra/chakra.0.et.gz"
n=$("$C" feed "$real" | wc -l)
"$B" "$real" --repeat 1 --deps both > "$tmp/real.txt" || fail "real trace exit status"
cat "$tmp/real.txt"
grep -q "^nodes      $n " "$tmp/real.txt" || fail "real trace: $n nodes expected"
grep -q "^blocked    0 nodes" "$tmp/real.txt" && fail "real trace: some nodes are blocked"
"$B" "$tmp/s.0.et" --deps none > /dev/null 2>&1
[ $? -eq 2 ] || fail "bad --deps: exit 2 expected"
"$B" "$tmp/missing.et" > /dev/null 2>&1 && fail "missing trace accepted"
# A truncated trace: exit 1 and the reader's error, with the file's name.
head -c 100000 "$tmp/s.0.et" > "$tmp/cut.et"
"$B" "$tmp/cut.et" --repeat 1 > /dev/null 2> "$tmp/cut.err" && fail "truncated trace accepted"
cat "$tmp/cut.err"
grep -q "cut.et.*truncated" "$tmp/cut.err" || fail "truncated trace: no error naming the file"
rm -rf "$tmp"
exit $fails
