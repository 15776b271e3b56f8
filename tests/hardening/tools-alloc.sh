#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Allocation failures in the tools: every
# allocation of a run is failed in turn (an LD_PRELOAD shim fails the k-th
# one, for every k). Each run must either succeed with the same output as
# without the shim, or fail with a message and exit status 1 leaving no
# output and no temporary behind: never a crash (YAJL's default allocator
# dereferenced NULL in jsonize, pack, timeline, convert), never exit 0 with less
# output (timeline took a failed getline for the end of its input).
# Usage: tools-alloc.sh FAILALLOC_SO SANITIZE_OPTION
# Not under sanitizers or valgrind, which replace malloc themselves.
set -u
shim=$1
case ${2:-none} in none|'') ;; *) echo "skipped under -Db_sanitize=$2"; exit 77 ;; esac
C=${CHAKRA_EXE:?}
D=${CHAKRA_SHARED:?}/data
t=$(mktemp -d "${TMPDIR:-/tmp}/tools-alloc.XXXXXX") || exit 1
mkdir -p "$t/set"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
ET=$D/astra-sim/microbenchmarks/all_to_all/4npus_1MB/all_to_all.1.et
DAG=${CHAKRA_SOURCE:?}/tests/fuzz/corpus/reader/dag-allkinds
"$C" jsonize "$DAG" -o "$t/dag.json" && "$C" jsonize --protobuf-json "$DAG" -o "$t/dag.pb.json" || bad setup
printf 'issue,npu_id=0,cycle=1,node_id=1,node_name=a\nissue,npu_id=0,cycle=2,node_id=2,node_name=b\ncallback,npu_id=0,cycle=5,node_id=1,node_name=a\ncallback,npu_id=0,cycle=9,node_id=2,node_name=b\n' >"$t/ev.csv"
runs=0
# sweep NAME ARGS... (OUT stands for the output file)
sweep() {
	name=$1; shift
	set -- $(printf '%s\n' "$@" | sed "s|^OUT\$|$t/out|")
	rm -f "$t/out"
	FAILALLOC_REPORT=1 LD_PRELOAD=$shim "$C" "$@" >"$t/ref.stdout" 2>"$t/ref.err" || { bad "$name: fails without a failure: $(cat "$t/ref.err")"; return; }
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
			# (validate reports on stdout)
			cat "$t/k.err" "$t/k.stdout" | grep -qi 'out of memory\|cannot allocate' ||
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
# sweep_set NAME PREFIX ARGS...: a command writing a set of files PREFIX.*
# (lib/outfile.c's sets): a run that fails leaves none of them, and no
# temporary; one that succeeds writes the same files as the reference run.
sweep_set() {
	name=$1 pre=$2; shift 2
	rm -f "$pre".*
	FAILALLOC_REPORT=1 LD_PRELOAD=$shim "$C" "$@" >"$t/ref.stdout" 2>"$t/ref.err" || { bad "$name: fails without a failure: $(cat "$t/ref.err")"; return; }
	n=$(sed -n 's/^failalloc: \([0-9]*\) allocations$/\1/p' "$t/ref.err")
	mkdir -p "$t/refset" && rm -f "$t/refset"/* && cp "$pre".* "$t/refset/"
	k=1 oom=0
	while [ "$k" -le "$n" ]; do
		rm -f "$pre".*
		FAILALLOC_AT=$k LD_PRELOAD=$shim "$C" "$@" >"$t/k.stdout" 2>"$t/k.err"
		rc=$?
		runs=$((runs + 1))
		if [ $rc -eq 0 ]; then
			for f in "$t/refset"/*; do
				cmp -s "$f" "$(dirname "$pre")/$(basename "$f")" || bad "$name, allocation $k failed: exit 0 with another $(basename "$f")"
			done
		elif [ $rc -eq 1 ]; then
			oom=$((oom + 1))
			grep -qi 'out of memory\|cannot allocate' "$t/k.err" ||
				bad "$name, allocation $k failed: exit 1 without saying why: $(head -c 200 "$t/k.err")"
			ls "$pre".* >/dev/null 2>&1 && bad "$name, allocation $k failed: exit 1 but outputs exist: $(ls "$pre".* | tr '\n' ' ')"
		else
			bad "$name, allocation $k failed: exit $rc: $(head -c 300 "$t/k.err")"
		fi
		ls -a "$(dirname "$pre")" | grep -q '\.tmp-\|\.old-' && { bad "$name, allocation $k failed: temporary left"; rm -f "$(dirname "$pre")"/*.tmp-* "$(dirname "$pre")"/*.old-*; }
		k=$((k + 1))
	done
	echo "$name: $n allocations, each failed in turn: $oom runs reported it (exit 1), the others recovered"
	rm -f "$pre".*
}
sweep jsonize jsonize "$ET"
sweep jsonize-protobuf jsonize --protobuf-json "$DAG"
sweep jsonize-file jsonize "$DAG" -o OUT
sweep pack pack "$t/dag.json" -o OUT
sweep pack-protobuf pack "$t/dag.pb.json" -o OUT
sweep validate validate "$DAG"
sweep stats stats "$DAG" --json
sweep timeline timeline "$t/ev.csv" --npus 1 --frequency 1 -o OUT
sweep visualize visualize "$DAG" --format dot -o OUT
# the modules' JSON parsers (YAJL over lib/json's guarded allocator: YAJL
# itself dereferenced NULL in convert and synth)
FZ=$CHAKRA_SOURCE/tests/fuzz/corpus
sweep convert-kineto convert kineto "$FZ/convert_kineto/event-sync.json" -o OUT -q
sweep convert-pytorch convert pytorch --et "$FZ/convert_pytorch/allgather-1.0.2.json" -o OUT -q
A=$D/astra-sim
sweep sim sim --workload "$A/microbenchmarks/all_reduce/4npus_1MB/all_reduce" \
	--network "$A/network/Ring_4npus.yml" --system "$A/system/HGX-H100-validated.json" --json
sweep synth-sample synth sample "$FZ/synth_model/compute_only.json" --npus 2 --nodes 20 -o "$t/syn" -f
rm -f "$t"/syn.*
# the paths of the output helper, group checks and the converters' gzip
# reader: a gzip input of two members, {R} (ranks and the group file as
# one set), project (ranks and group file), synth fit with a group file,
# sim --replay --timeline
mkdir -p "$t/in"
sweep convert-kineto-gzip convert kineto "$FZ/convert_kineto/gzip-two-members.json.gz" -o OUT -q
cp "$FZ/convert_kineto/nccl-broadcast.json" "$t/in/k0.json"
sed 's/"rank":0/"rank":1/' "$FZ/convert_kineto/nccl-broadcast.json" >"$t/in/k1.json"
sweep_set convert-ranks "$t/set/mr" convert kineto "$t/in/k{R}.json" -o "$t/set/mr" -q
"$C" generate model --model mlp --parallel data --npus 2 --batch 64 -o "$t/in/m" >/dev/null 2>&1 || bad "generate model"
sweep_set project "$t/set/pj" project "$t/in/m" --dp 4 -o "$t/set/pj"
sweep synth-fit-groups synth fit "$t/in/m" --comm-group "$t/in/m.comm_groups.json" -o OUT
"$C" convert kineto "$D/kineto/hta-critical-path/cuda_event_sync/event_sync_trace.json.gz" -o "$t/in/k.et" -q || bad "convert"
sweep sim-replay-timeline sim --replay --workload "$t/in/k.et" --timeline OUT --json
rm -rf "$t"
[ $fails -eq 0 ] && echo "allocation failures: $runs runs, all clean"
exit $fails
