#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# chakra sim on converted real traces (tests/data through chakra convert):
# the default rules are ASTRA-sim's, and every cycle below is what stock
# ASTRA-sim prints for the same files (measured with tests/sim/astra_oracle.sh's
# build; tests/sim/sim_diff_traces.py checks them all against it when an
# oracle is given). Single-rank traces run alone on one NPU (stock ASTRA-sim
# needs two: the same trace on both gives these cycles). Also: the options
# that leave ASTRA-sim's rules (--rules model, --durations nanos, --streams),
# the JSON's "rules", and generated GPT workloads under --rules astra-sim.
set -u
. "$(dirname "$0")/../need.sh" && need_data data/kineto data/pytorch data/astra-sim
X="$CHAKRA_EXE"
D="$CHAKRA_SHARED/data"
T=$(mktemp -d /tmp/chakra-sim-traces-XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
SYS="$D/astra-sim/system/Ring_4chunks.json"
net() { # NAME TOPOLOGY NPUS GB/s NS
	printf 'topology: [ %s ]\nnpus_count: [ %s ]\nbandwidth: [ %s ]\nlatency: [ %s ]\n' "$2" "$3" "$4" "$5" >"$T/$1.yml"
}
net one Switch 1 50 500
net sw2s Switch 2 0.5 5000
net r4s Ring 4 0.5 5000
# check WHAT WANT -- sim arguments: every NPU's "finish exposed" (ASTRA-sim's
# log line) equals WANT, a space-separated list in rank order.
check() {
	what=$1 want=$2
	shift 3
	if ! "$X" sim --astra-sim-log "$@" >"$T/out" 2>"$T/err"; then
		bad "$what: $(head -c 300 "$T/err")"
		return
	fi
	got=$(sed -n 's/^sys\[[0-9]*\] finished, \([0-9]*\) cycles, exposed communication \([0-9]*\) cycles\.$/\1\/\2/p' "$T/out" | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ] && ok "$what: $got" || bad "$what: got '$got', want '$want'"
}
K=$D/kineto/hta-critical-path
A='[param|pytorch.model.alex_net|0|0|0|measure|forward]'
conv() { # NAME convert-arguments...: NAME.0.et
	name=$1
	shift
	"$X" convert "$@" -o "$T/$name.0.et" -q 2>"$T/err" || bad "convert $name: $(head -c 300 "$T/err")"
}
conv es kineto "$K/cuda_event_sync/event_sync_trace.json.gz" --step 100
conv alex kineto "$K/alexnet/benchmark_result_2869224_1695835535_trace.json.gz" --annotation "$A" --instance 1
conv lin kineto "$D/pytorch/param-linear/linear_kineto.json.gz" \
	--annotation 'Optimizer.zero_grad#SGD.zero_grad' --instance 20 --to-next
conv linet pytorch --et "$D/pytorch/param-linear/linear_et.json.gz" --kineto "$D/pytorch/param-linear/linear_kineto.json.gz"
check "cuda_event_sync step 100" 2453000/2402000 -- --workload "$T/es" --network "$T/one.yml" --system "$SYS"
check "alexnet param_measure #2" 36716000/31399000 -- --workload "$T/alex" --network "$T/one.yml" --system "$SYS"
check "param-linear iteration 20" 20328000/11208000 -- --workload "$T/lin" --network "$T/one.yml" --system "$SYS"
check "param-linear ET + Kineto" 44212000/34455000 -- --workload "$T/linet" --network "$T/one.yml" --system "$SYS"

# The options that leave ASTRA-sim's rules, on the same trace: the model's
# (one compute slot: CPU and GPU in turn), exact nanoseconds, one slot per
# thread and stream (here one thread, one stream: the same).
check "cuda_event_sync, --rules model" 2466000/0 -- --workload "$T/es" --network "$T/one.yml" --system "$SYS" --rules model
check "alexnet, --streams" 36660000/31343000 -- --workload "$T/alex" --network "$T/one.yml" --system "$SYS" --streams
"$X" sim --workload "$T/es" --network "$T/one.yml" --system "$SYS" --json >"$T/j" 2>"$T/err"
grep -q '"rules":"astra-sim"' "$T/j" && grep -q '"cpu_cycles":' "$T/j" && ok "json: rules and cpu_cycles" ||
	bad "json: $(head -c 300 "$T/j")"
# Usage errors name the choices.
"$X" sim --workload "$T/es" --network "$T/one.yml" --system "$SYS" --rules stock 2>"$T/err"
[ $? = 2 ] && grep -q "expected auto, astra-sim or model" "$T/err" && ok "bad --rules" || bad "bad --rules: $(cat "$T/err")"
"$X" sim --workload "$T/es" --network "$T/one.yml" --system "$SYS" --durations secs 2>"$T/err"
[ $? = 2 ] && grep -q "expected micros or nanos" "$T/err" && ok "bad --durations" || bad "bad --durations: $(cat "$T/err")"
# The timeline: CPU nodes on a third thread, beside compute and communication.
"$X" sim --workload "$T/es" --network "$T/one.yml" --system "$SYS" --timeline "$T/tl.json" >/dev/null 2>&1
grep -q '"tid":2,"name":"thread_name","args":{"name":"cpu"}' "$T/tl.json" &&
	grep -q '"tid":2,"ts"' "$T/tl.json" && /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/tl.json" &&
	ok "timeline: a cpu thread" || bad "timeline: $(head -c 300 "$T/tl.json")"

# With collectives: a rank of a 2-rank DDP job, on both ranks of its group.
conv nccl kineto "$D/kineto/hta-nccl/nccl_data.json.gz" --step 5
cp "$T/nccl.0.et" "$T/nccl.1.et"
check "hta-nccl step 5, 2 NPUs, slow switch" "284535124/245234124 284535124/245234124" -- \
	--workload "$T/nccl" --network "$T/sw2s.yml" --system "$SYS"
check "hta-nccl step 5, aware" "474949828/435648828 474949828/435648828" -- \
	--workload "$T/nccl" --network "$T/sw2s.yml" --system "$SYS" --model aware
check "hta-nccl step 5, --durations nanos" "284522170/245225333 284522170/245225333" -- \
	--workload "$T/nccl" --network "$T/sw2s.yml" --system "$SYS" --durations nanos

# A multi-rank Kineto set (two sampled ranks of one job), and chakra project.
if "$X" convert kineto "$D/kineto/hta-trace-filter/sampled_rank-{R}.json.gz" -o "$T/filt" -q 2>"$T/err"; then
	check "hta-trace-filter ranks 0-1" "623521000/411876000 640533000/352056000" -- \
		--workload "$T/filt" --network "$T/sw2s.yml" --system "$SYS"
else
	bad "convert hta-trace-filter: $(head -c 300 "$T/err")"
fi
if "$X" project "$T/nccl" --dp 4 -o "$T/p4" 2>"$T/err"; then
	check "hta-nccl step 5 projected to 4 ranks" \
		"379991108/340690108 379991108/340690108 379991108/340690108 379991108/340690108" -- \
		--workload "$T/p4" --network "$T/r4s.yml" --system "$SYS" --comm-group "$T/p4.comm_groups.json"
else
	bad "project: $(head -c 300 "$T/err")"
fi

# Generated GPT workloads (chakra generate model --model gpt: endpoint
# delay 0, a Switch dimension per parallel axis) under --rules astra-sim:
# groups smaller than the system run on stock's ring of their own, whose
# packets are ready 10 ns after insertion (docs/sim.md, rule 20). Stock
# prints these cycles for the same files.
gpt() { # NAME TP PP DP
	"$X" generate model --model gpt --layers 4 --hidden 512 --heads 8 --seq 256 --global-batch 8 \
		--micro-batch 2 --tp "$2" --pp "$3" --dp "$4" --gpu a100 -o "$T/$1" 2>"$T/err" >/dev/null ||
		bad "generate $1: $(head -c 300 "$T/err")"
}
gpt tpdp 2 1 2
gpt ppdp 1 2 2
check "GPT tp 2 x dp 2, --rules astra-sim" \
	"22383826/345826 22383826/345826 22383826/345826 22383826/345826" -- --workload "$T/tpdp" \
	--network "$T/tpdp.network.yml" --system "$T/tpdp.system.json" \
	--comm-group "$T/tpdp.comm_groups.json" --rules astra-sim
check "GPT pp 2 x dp 2, --rules astra-sim" \
	"16728216/6891216 16728216/6891216 16605583/5262583 16605583/5262583" -- --workload "$T/ppdp" \
	--network "$T/ppdp.network.yml" --system "$T/ppdp.system.json" \
	--comm-group "$T/ppdp.comm_groups.json" --rules astra-sim
exit $fails
