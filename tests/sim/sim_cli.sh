#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# chakra sim command line: ASTRA-sim spellings, outputs (--events read back
# by chakra timeline, --timeline), bad configs and options (exit status and
# messages naming file, line and key), outputs never overwrite inputs.
set -u
. "$(dirname "$0")/../need.sh" && need_data data/astra-sim data/chakra/chakra.0.et.gz
. "$(dirname "$0")/../cli.sh" && cli_tmp sim-cli
X="$CHAKRA_EXE"
D="$CHAKRA_SHARED/data/astra-sim"
W="$D/microbenchmarks/all_reduce/8npus_1MB/all_reduce"
NET="$D/network/Ring_8npus.yml"
SYS="$D/system/Ring_4chunks.json"

expect 0 "" "help" -- "$X" sim --help
expect 2 "--workload is required" "no arguments" -- "$X" sim
expect 2 "unknown option" "unknown option" -- "$X" sim --workload "$W" --network "$NET" --system "$SYS" --frobnicate
expect 2 "unaware or aware" "bad model" -- "$X" sim --workload "$W" --network "$NET" --system "$SYS" --model fast
expect 2 "needs a value" "option without value" -- "$X" sim --workload "$W" --network "$NET" --system
expect 2 "rank 9 is not in 0..7" "straggler out of range" -- "$X" sim --workload "$W" --network "$NET" --system "$SYS" --start-delay 9=100
expect 2 "" "bad compute scale" -- "$X" sim --workload "$W" --network "$NET" --system "$SYS" --compute-scale 2=abc

printf 'topology: [ Ring ]\nnpus_count: [ 8 ]\n# a comment\nbandwidth: [ 50.0 ]\nlatency: [ slow ]\n' >"$T/bad.yml"
expect 1 "bad.yml:5: key 'latency': 'slow'" "network error names file, line, key" -- \
	"$X" sim --workload "$W" --network "$T/bad.yml" --system "$SYS"
printf '{\n "endpoint-delay": 10,\n "local-mem-bw": 1600,\n "active-chunks-per-dimension": -1\n}\n' >"$T/bad.json"
expect 1 "bad.json:4: key 'active-chunks-per-dimension'" "system error names file, line, key" -- \
	"$X" sim --workload "$W" --network "$NET" --system "$T/bad.json"
printf '{\n "0": [0, 1, 2, 3],\n "1": [4, 5, 6, 8]\n}\n' >"$T/groups.json"
expect 1 "groups.json:3: group '1': entry 3 is not a rank in 0..7" "comm group rank out of range" -- \
	"$X" sim --workload "$W" --network "$NET" --system "$SYS" --comm-group "$T/groups.json"
expect 1 "has 8 ranks but the network has 4" "workload/network size mismatch" -- \
	"$X" sim --workload "$W" --network "$D/network/Ring_4npus.yml" --system "$SYS"
expect 1 "no workload" "missing workload" -- "$X" sim --workload "$T/none" --network "$NET" --system "$SYS"
expect 2 "need a file" "timeline on stdout" -- "$X" sim --workload "$W" --network "$NET" --system "$SYS" --timeline -
cp "$NET" "$T/net.yml"
expect 1 "refusing to overwrite" "output is an input" -- \
	"$X" sim --workload "$W" --network "$T/net.yml" --system "$SYS" --timeline "$T/net.yml"
cmp -s "$NET" "$T/net.yml" && ok "input left alone" || bad "input was modified"

# A real PyTorch-derived trace (one rank): its c10d::broadcast_ node is a
# COMM_COLL_NODE without comm_type; named, not guessed, with any --deps.
printf 'topology: [ Ring ]\nnpus_count: [ 1 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' >"$T/one.yml"
for d in data both; do
	expect 1 "rank 0 node 432 (c10d::broadcast_(0)): collective without an integer comm_type" \
		"real trace, --deps $d" -- "$X" sim --workload "$CHAKRA_SHARED/data/chakra/chakra" \
		--network "$T/one.yml" --system "$SYS" --deps $d
done
expect 2 "data, ctrl or both" "bad --deps" -- "$X" sim --workload "$W" --network "$NET" --system "$SYS" --deps all

# Outputs: events CSV (issue + callback per node) read back by chakra timeline.
expect 1 "none.json" "missing comm-group file" -- "$X" sim --workload "$W" --network "$NET" \
	--system "$SYS" --comm-group-configuration="$T/none.json"
expect 0 "" "events and timeline" -- "$X" sim --workload-configuration="$W" \
	--network-configuration="$NET" --system-configuration="$SYS" \
	--events "$T/ev.csv" --timeline "$T/tl.json" --json
grep -q '^{"finish_cycles":64440,' "$T/out" && ok "json finish" || bad "json: $(cat "$T/out")"
[ "$(grep -c '^issue,npu_id=[0-7],cycle=0,node_id=[0-9]*,node_name=all_reduce_8npus_1MB$' "$T/ev.csv")" = 8 ] &&
	ok "8 issue lines" || bad "issue lines: $(head -3 "$T/ev.csv")"
[ "$(grep -c '^callback,npu_id=[0-7],cycle=64440,node_id=[0-9]*,node_name=' "$T/ev.csv")" = 8 ] &&
	ok "8 callback lines at 64440" || bad "callback lines: $(tail -3 "$T/ev.csv")"
expect 0 "" "chakra timeline reads the events" -- "$X" timeline "$T/ev.csv" --npus 8 --frequency 1 -o "$T/tl2.json"
grep -q '"traceEvents"' "$T/tl.json" && grep -q '"dur":64.44[,}]' "$T/tl.json" &&
	[ "$(grep -o '"thread_name"' "$T/tl.json" | wc -l)" = 16 ] && /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/tl.json" && ok "timeline JSON" ||
	bad "timeline: $(head -c 400 "$T/tl.json")"
# The output rule: an existing file is replaced only with -f; a failed run
# leaves nothing under the output's name and no temporary.
echo keep >"$T/keep.json"
expect 1 "use -f" "existing --timeline refused" -- "$X" sim --workload "$W" --network "$NET" \
	--system "$SYS" --timeline "$T/keep.json"
[ "$(cat "$T/keep.json")" = keep ] && ok "existing file kept" || bad "existing file changed"
expect 0 "" "-f replaces it" -- "$X" sim --workload "$W" --network "$NET" --system "$SYS" \
	--timeline "$T/keep.json" -f
grep -q '"traceEvents"' "$T/keep.json" && ok "replaced with -f" || bad "not replaced"
expect 1 "no workload" "failed run" -- "$X" sim --workload "$T/none" --network "$NET" \
	--system "$SYS" --timeline "$T/fail.json" --events "$T/fail.csv"
[ ! -e "$T/fail.json" ] && [ ! -e "$T/fail.csv" ] && ! ls "$T" | grep -q 'tmp-' &&
	ok "failed run leaves no output" || bad "failed run left: $(ls "$T")"
# One file is one rank; without --network/--system it runs on one NPU
# (said on stderr); a larger workload then needs the files.
cp "$D/microbenchmarks/all_reduce/4npus_1MB/all_reduce.0.et" "$T/one.et"
expect 0 "no --network/--system: one NPU" "one file, one NPU" -- "$X" sim --workload "$T/one.et"
grep -q '^finished at [0-9]* cycles (1 NPUs' "$T/out" && ok "one NPU run" || bad "one NPU: $(cat "$T/out")"
expect 1 "has 8 ranks but the network has 1 NPUs" "8 ranks, no network" -- "$X" sim --workload "$W"
expect 2 "go together" "--network without --system" -- "$X" sim --workload "$W" --network "$NET"
expect 1 "one file is one rank, but the network has 8 NPUs" "one file, 8 NPUs" -- \
	"$X" sim --workload "$T/one.et" --network "$NET" --system "$SYS"
expect 1 "$T: is a directory" "a directory" -- "$X" sim --workload "$T"
# Human summary: a line per NPU, then the finish.
expect 0 "" "summary" -- "$X" sim --workload "$W" --network "$NET" --system "$SYS"
[ "$(grep -c '^[0-7] .* 64440 .* 0 .* 64440 .* 1$' "$T/out")" = 8 ] &&
	grep -q '^finished at 64440 cycles (8 NPUs' "$T/out" && ok "summary lines" ||
	bad "summary: $(cat "$T/out")"
# Stragglers and compute scaling from the command line (a pure collective:
# compute scaling changes nothing; a late rank delays everyone).
"$X" sim --workload "$W" --network "$NET" --system "$SYS" --json --start-delay 3=1000 \
	--compute-scale 4 >"$T/out" 2>&1
grep -q '^{"finish_cycles":65440,' "$T/out" && ok "start delay" || bad "start delay: $(cat "$T/out")"
exit $fails
