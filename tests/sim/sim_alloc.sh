#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Allocation failures in chakra sim: every
# allocation of a run is failed in turn (the LD_PRELOAD shim of
# tests/hardening/failalloc.c fails the k-th one, for every k): the
# configuration parsers (libyaml, YAJL through the module's recovering
# allocator), the workload, both network models, ASTRA-sim's rules on a
# converted trace, the outputs. Each run must
# succeed with the same output or fail with "out of memory" and exit 1,
# leaving no output file and no temporary: never a crash.
# Usage: sim_alloc.sh FAILALLOC_SO SANITIZE_OPTION
set -u
shim=$1
case ${2:-none} in none|'') ;; *) echo "skipped under -Db_sanitize=$2"; exit 77 ;; esac
C=${CHAKRA_EXE:?}
D=${CHAKRA_SHARED:?}/data/astra-sim
[ -d "$D/microbenchmarks" ] || { echo "skipped: no $D"; exit 77; }
t=$(mktemp -d "${TMPDIR:-/tmp}/sim-alloc.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
fails=0 runs=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
W4=$D/microbenchmarks/all_reduce/4npus_1MB/all_reduce
printf '{"a": [0, 1], "b": [2, 3], "all": [0, 1, 2, 3]}\n' >"$t/groups.json"
sed 's/"ring"/"direct"/' "$D/system/Ring_4chunks.json" >"$t/direct.json"
sed 's/"ring"/"halvingDoubling"/' "$D/system/Ring_4chunks.json" >"$t/hd.json"
sweep() {
	name=$1; shift
	set -- $(printf '%s\n' "$@" | sed "s|^OUT\$|$t/out|")
	rm -f "$t/out"
	FAILALLOC_REPORT=1 LD_PRELOAD=$shim "$C" "$@" >"$t/ref.stdout" 2>"$t/ref.err" ||
		{ bad "$name: fails without a failure: $(cat "$t/ref.err")"; return; }
	[ -e "$t/out" ] && mv "$t/out" "$t/ref.out"
	n=$(sed -n 's/^failalloc: \([0-9]*\) allocations$/\1/p' "$t/ref.err")
	k=1 oom=0
	while [ "$k" -le "$n" ]; do
		rm -f "$t/out"
		FAILALLOC_AT=$k LD_PRELOAD=$shim "$C" "$@" >"$t/k.stdout" 2>"$t/k.err"
		rc=$?
		runs=$((runs + 1))
		if [ $rc -eq 0 ]; then
			cmp -s "$t/k.stdout" "$t/ref.stdout" || bad "$name, allocation $k failed: exit 0 with other output"
			[ ! -e "$t/ref.out" ] || cmp -s "$t/out" "$t/ref.out" || bad "$name, allocation $k failed: exit 0 with another file"
		elif [ $rc -eq 1 ]; then
			oom=$((oom + 1))
			grep -qi 'out of memory\|cannot allocate' "$t/k.err" ||
				bad "$name, allocation $k failed: exit 1 without saying why: $(head -c 200 "$t/k.err")"
			[ ! -e "$t/out" ] || bad "$name, allocation $k failed: exit 1 but the output exists"
		else
			bad "$name, allocation $k failed: exit $rc: $(head -c 300 "$t/k.err")"
		fi
		ls "$t" | grep -q '\.tmp-' && { bad "$name, allocation $k failed: temporary left"; rm -f "$t"/*.tmp-*; }
		k=$((k + 1))
	done
	echo "$name: $n allocations, each failed in turn: $oom runs reported it (exit 1), the others recovered"
	rm -f "$t/ref.out"
}
sweep unaware sim --workload "$W4" --network "$D/network/Ring_4npus.yml" \
	--system "$D/system/Ring_4chunks.json" --json
sweep aware-groups-timeline sim --workload "$W4" --network "$D/network/Ring_4npus.yml" \
	--system "$D/system/Ring_4chunks.json" --model aware --comm-group "$t/groups.json" \
	--timeline OUT --json
sweep direct-events sim --workload "$W4" --network "$D/network/Ring_4npus.yml" \
	--system "$t/direct.json" --events OUT --start-delay 1=100 --json
sweep hd-aware sim --workload "$W4" --network "$D/network/Ring_4npus.yml" \
	--system "$t/hd.json" --model aware --astra-sim-log
# A converted trace: ASTRA-sim's rules (slots, ready heaps, the CPU lane).
K=$CHAKRA_SHARED/data/kineto/hta-critical-path/cuda_event_sync/event_sync_trace.json.gz
if [ -f "$K" ] && "$C" convert kineto "$K" --step 100 -o "$t/es.0.et" -q; then
	printf 'topology: [ Switch ]\nnpus_count: [ 1 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' >"$t/one.yml"
	sweep converted-timeline sim --workload "$t/es" --network "$t/one.yml" \
		--system "$D/system/Ring_4chunks.json" --timeline OUT --json
	sweep converted-streams sim --workload "$t/es" --network "$t/one.yml" \
		--system "$D/system/Ring_4chunks.json" --streams --astra-sim-log
fi
[ $fails -eq 0 ] && echo "allocation failures in chakra sim: $runs runs, all clean"
exit $fails
