#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# chakra predict / calibrate / generate model --model gpt on small inputs:
# outputs and their fields, the written workload validating and simulating
# to the predicted cycle in `chakra sim`, layouts that cannot run, broken
# measurement files and logs, nothing overwritten unasked.
set -u
. "$(dirname "$0")/../cli.sh" && cli_tmp predict-cli
X="$CHAKRA_EXE"
D="$CHAKRA_SHARED/data/measured"
json() { # json FILE EXPR: python's value of EXPR over the parsed file as j
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

M="--layers 8 --hidden 1024 --heads 16 --seq 512 --global-batch 32 --gpu a100"

expect 0 "" "help" -- "$X" predict gpt --help
expect 0 "" "text output" -- "$X" predict gpt $M --tp 2 --pp 2 --dp 2
for w in "iteration:" "compute" "TP exposed" "PP exposed" "DP exposed" "pipeline bubble" \
	"memory per GPU"; do
	grep -q "$w" "$T/out" || bad "text output lacks '$w'"
done

# --json: the fields, the breakdown adds up, exact cycles
"$X" predict gpt $M --tp 2 --pp 2 --dp 2 --micro-batch 2 --sequence-parallel \
	--distributed-optimizer --interleave 2 --json >"$T/p.json" 2>"$T/err" || bad "predict --json"
if [ "$(json "$T/p.json" "abs(sum(j['breakdown'].values()) - j['iteration_s']) < 1e-9")" = True ] &&
	[ "$(json "$T/p.json" "j['iteration_ns'] == round(j['iteration_s'] * 1e9)")" = True ] &&
	[ "$(json "$T/p.json" "sorted(j['memory'])")" = \
	  "['activations_bytes', 'capacity_bytes', 'fits', 'gradients_bytes', 'optimizer_bytes', 'total_bytes', 'weights_bytes']" ]
then ok "--json fields"; else bad "--json fields: $(head -c 600 "$T/p.json")"; fi

# A layout that does not fit is said so, and still timed.
"$X" predict gpt --layers 96 --hidden 12288 --heads 96 --seq 2048 --global-batch 8 --gpu a100-40g \
	--tp 8 --pp 1 --dp 1 --json >"$T/big.json" 2>"$T/err" || bad "big model"
[ "$(json "$T/big.json" "j['memory']['fits'] is False and j['iteration_s'] > 0")" = True ] &&
	ok "does not fit, still timed" || bad "does not fit: $(head -c 300 "$T/big.json")"
"$X" predict gpt --layers 96 --hidden 12288 --heads 96 --seq 2048 --global-batch 8 --gpu a100-40g \
	--tp 8 --pp 1 --dp 1 | grep -q "DOES NOT FIT" && ok "DOES NOT FIT" || bad "no DOES NOT FIT"

# Layouts that cannot run, named by their values (usage errors).
expect 2 "tp 2 x pp 2 x dp 2 = 8 is not --gpus 16" "gpus mismatch" -- \
	"$X" predict gpt $M --tp 2 --pp 2 --dp 2 --gpus 16
expect 2 "heads 16 are not divisible by tp 3" "heads vs tp" -- "$X" predict gpt $M --tp 3 --dp 1
expect 2 "layers 8 are not divisible by pp 4 x interleave 3" "layers vs pp" -- \
	"$X" predict gpt $M --pp 4 --interleave 3 --dp 1
expect 2 "global batch 32 is not divisible by micro batch 3 x dp 2" "batch" -- \
	"$X" predict gpt $M --micro-batch 3 --dp 2
expect 2 "do not fill nodes of 8 GPUs" "misaligned" -- "$X" predict gpt $M --tp 1 --dp 12 \
	--global-batch 48
expect 2 "--gpu is required" "no gpu" -- "$X" predict gpt --layers 8 --hidden 1024 --heads 16 \
	--seq 512 --global-batch 32 --dp 1
expect 2 "unknown GPU 'v100'" "unknown gpu" -- "$X" predict gpt $M --dp 1 --gpu v100
expect 2 "give --dp or --gpus" "no dp" -- "$X" predict gpt $M
expect 2 "a100 has no FP8" "fp8 on a100" -- "$X" predict gpt $M --dp 1 --precision fp8
expect 0 "" "fp8 on h100" -- "$X" predict gpt $M --dp 1 --precision fp8 --gpu h100

# The workload: written, validated, simulated to the predicted cycle.
"$X" predict gpt $M --tp 2 --pp 2 --dp 2 --micro-batch 2 --interleave 2 --sequence-parallel \
	--distributed-optimizer -o "$T/w" --json >"$T/w.json" 2>"$T/err" || bad "predict -o"
n=$(ls "$T"/w.*.et 2>/dev/null | wc -l)
[ "$n" -eq 8 ] && ok "8 rank files" || bad "$n rank files"
for f in "$T"/w.*.et; do
	"$X" validate --strict "$f" >/dev/null 2>&1 || bad "validate $f"
done
"$X" sim --workload "$T/w" --network "$T/w.network.yml" --system "$T/w.system.json" \
	--comm-group "$T/w.comm_groups.json" --json >"$T/sim.json" 2>"$T/err" || bad "sim: $(cat "$T/err")"
a=$(json "$T/sim.json" "j['finish_cycles']")
b=$(json "$T/w.json" "j['iteration_ns']")
[ -n "$a" ] && [ "$a" = "$b" ] && ok "chakra sim: $a cycles, as predicted" ||
	bad "chakra sim $a cycles, predicted $b"
expect 1 "exists" "no overwrite" -- "$X" predict gpt $M --tp 2 --pp 2 --dp 2 -o "$T/w"
# generate model --model gpt writes the same files
"$X" generate model --model gpt $M --tp 2 --pp 2 --dp 2 --micro-batch 2 --interleave 2 \
	--sequence-parallel --distributed-optimizer -o "$T/g" >/dev/null 2>"$T/err" ||
	bad "generate model --model gpt: $(cat "$T/err")"
same=1
for f in "$T"/w.*; do
	case "$f" in *.json) [ "$f" = "$T/w.json" ] && continue ;; esac
	cmp -s "$f" "$T/g${f#$T/w}" || same=0
done
[ $same = 1 ] && ok "generate model --model gpt = predict -o" || bad "generated files differ"

# A network of the user's: the collectives name their groups only; chakra sim
# on the same files and network lands on the same cycle.
N="$CHAKRA_SHARED/data/astra-sim"
"$X" predict gpt $M --tp 2 --pp 2 --dp 2 --network "$N/network/Ring_8npus.yml" \
	--system "$N/system/Ring_4chunks.json" -o "$T/u" --json >"$T/u.json" 2>"$T/err" ||
	bad "predict --network: $(cat "$T/err")"
[ ! -e "$T/u.network.yml" ] && [ -e "$T/u.comm_groups.json" ] && ok "--network: no network file" ||
	bad "--network wrote the wrong files"
"$X" sim --workload "$T/u" --network "$N/network/Ring_8npus.yml" --system "$N/system/Ring_4chunks.json" \
	--comm-group "$T/u.comm_groups.json" --json >"$T/usim.json" 2>"$T/err" || bad "sim on --network"
a=$(json "$T/usim.json" "j['finish_cycles']")
b=$(json "$T/u.json" "j['iteration_ns']")
[ -n "$a" ] && [ "$a" = "$b" ] && ok "--network: chakra sim $a cycles, as predicted" ||
	bad "--network: chakra sim $a cycles, predicted $b"
expect 1 "the network has 8 NPUs" "--network of another size" -- "$X" predict gpt $M --tp 2 --pp 2 \
	--dp 1 --network "$N/network/Ring_8npus.yml" --system "$N/system/Ring_4chunks.json"
expect 2 "--network and --system go together" "--network alone" -- "$X" predict gpt $M --dp 1 \
	--network "$N/network/Ring_8npus.yml"

# The sweep: every layout, fastest first among those that fit.
"$X" predict gpt --layers 8 --hidden 1024 --heads 16 --seq 512 --global-batch 16 --gpu a100 \
	--sweep --gpus 8 --top 0 --json >"$T/s.json" 2>"$T/err" || bad "sweep"
[ "$(json "$T/s.json" "len(j['layouts']) == j['layouts_total'] > 10")" = True ] &&
	[ "$(json "$T/s.json" "all(a['iteration_s'] <= b['iteration_s'] for a, b in zip(j['layouts'], j['layouts'][1:]) if a['memory']['fits'] == b['memory']['fits'])")" = True ] &&
	[ "$(json "$T/s.json" "all(l['tp'] * l['pp'] * l['dp'] == 8 for l in j['layouts'])")" = True ] &&
	ok "sweep ranked" || bad "sweep: $(head -c 400 "$T/s.json")"
expect 2 "--sweep needs --gpus" "sweep without gpus" -- "$X" predict gpt $M --sweep

# One collective.
expect 0 "" "collective" -- "$X" predict collective --op all_reduce --gpus 16 --bytes 64MiB \
	--gpu a100 --json
[ "$(json "$T/out" "j['time_us'] > 0 and j['busbw_gbps'] > 0")" = True ] && ok "collective json" ||
	bad "collective json: $(cat "$T/out")"
expect 2 "--op, --gpus and --bytes are required" "collective usage" -- \
	"$X" predict collective --op all_reduce --gpu a100
expect 1 "do not fill nodes of 8" "collective misaligned" -- \
	"$X" predict collective --op all_reduce --gpus 12 --bytes 1MiB --gpu a100

# Calibration files: written, read back, refused when broken.
if [ -f "$D/echo-nccl-a100/nccl_8.log" ]; then
	expect 0 "" "calibrate nccl" -- "$X" calibrate nccl "$D/echo-nccl-a100/nccl_2.log" \
		"$D/echo-nccl-a100/nccl_8.log" -o "$T/net.json"
	expect 0 "" "collective with the calibration" -- "$X" predict collective --op all_reduce \
		--gpus 8 --bytes 1GiB --calibration "$T/net.json"
	expect 1 "exists" "calibrate nccl no overwrite" -- "$X" calibrate nccl \
		"$D/echo-nccl-a100/nccl_8.log" -o "$T/net.json"
	sed 's/     1048576 .*/     1048576   262144  float  sum  1x 1 1 0 1 1 1 0/' \
		"$D/echo-nccl-a100/nccl_2.log" >"$T/broken.log"
	line=$(grep -n '^ *1048576 ' "$T/broken.log" | cut -d: -f1)
	expect 1 "broken.log:$line: time '1x' is not a number" "broken nccl log" -- \
		"$X" calibrate nccl "$T/broken.log" -o "$T/n2.json"
else
	echo "skip calibrate nccl: no measured logs"
fi
printf 'GPUs,global batch\n1,2\n' >"$T/bad.csv"
expect 1 "bad.csv:1: no column 'micro batch'" "bad csv" -- \
	"$X" calibrate compute "$T/bad.csv" -o "$T/cal.json"
printf '{"gemm_efficiency": 2}' >"$T/badcal.json"
expect 1 "badcal.json: key 'gemm_efficiency'" "bad calibration" -- \
	"$X" predict gpt $M --dp 1 --calibration "$T/badcal.json"
expect 1 "$T/none.csv: no such file or directory" "missing input" -- \
	"$X" calibrate compute "$T/none.csv" -o "$T/cal.json"
expect 1 "$T: is a directory" "directory input" -- "$X" predict check --nccl "$T"
expect 2 "--holdout needs M:K" "bad holdout" -- "$X" predict check "$T/bad.csv" --holdout 3:5

[ $fails -eq 0 ] && echo "all predict CLI checks passed" || echo "$fails failed"
exit $((fails > 0))
