#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# chakra sim --replay and chakra project from the command line:
# - projection exact by construction: a data-parallel model workload
#   generated at 2 ranks and projected to 8 is the workload generated at 8
#   (byte for byte) and simulates to the same cycles; a hybrid one (model
#   groups of 2) projected from 8 to 32 ranks simulates to the cycles of the
#   one generated at 32;
# - a generated workload replayed with the network model ends at chakra
#   sim's cycle;
# - the ground truth of docs/replay.md through the CLI (within 3%);
# - options, errors, outputs never overwritten unasked.
set -u
. "$(dirname "$0")/../need.sh" && need_data data/astra-sim data/kineto/hta-critical-path
CLI_EXPECT_STDOUT=1 # the replay report goes to stdout
. "$(dirname "$0")/../cli.sh" && cli_tmp replay-cli
X="$CHAKRA_EXE"
D="$CHAKRA_SHARED/data"
# the number after "key": in a JSON object on one line
jnum() { sed -n "s/.*\"$1\":\([-0-9.]*\).*/\1/p" "$2" | head -1; }
cycles() { sed -n 's/^finished at \([0-9]*\) cycles.*/\1/p' "$1"; }

SYS="$D/astra-sim/system/Ring_4chunks.json"
printf 'topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' >"$T/r8.yml"
printf 'topology: [ Ring, Ring ]\nnpus_count: [ 4, 8 ]\nbandwidth: [ 50.0, 25.0 ]\nlatency: [ 500.0, 700.0 ]\n' >"$T/r32.yml"

# ---- projection, exact by construction ----
"$X" generate model --model mlp --parallel data --npus 2 --batch 256 -o "$T/m2" &&
"$X" generate model --model mlp --parallel data --npus 8 --batch 1024 -o "$T/m8" &&
"$X" project "$T/m2" --dp 8 -o "$T/p8" || bad "project: generate/project failed"
same=1
for r in 0 1 2 3 4 5 6 7; do cmp -s "$T/p8.$r.et" "$T/m8.$r.et" || same=0; done
cmp -s "$T/p8.comm_groups.json" "$T/m8.comm_groups.json" || same=0
[ $same = 1 ] && ok "project: mlp data 2 -> 8 is byte-identical to the one generated at 8" ||
	bad "project: mlp data 2 -> 8 differs from the one generated at 8"
"$X" sim --workload "$T/m8" --network "$T/r8.yml" --system "$SYS" --comm-group "$T/m8.comm_groups.json" >"$T/s8"
"$X" sim --workload "$T/p8" --network "$T/r8.yml" --system "$SYS" --comm-group "$T/p8.comm_groups.json" >"$T/sp8"
c8=$(cycles "$T/s8") cp8=$(cycles "$T/sp8")
[ -n "$c8" ] && [ "$c8" = "$cp8" ] && ok "project: same cycles ($c8)" || bad "project: cycles $cp8 vs $c8"

"$X" generate model --model transformer --parallel hybrid --npus 8 --mp-group 2 --batch 16 --layers 2 -o "$T/t8" &&
"$X" generate model --model transformer --parallel hybrid --npus 32 --mp-group 2 --batch 64 --layers 2 -o "$T/t32" &&
"$X" project "$T/t8" --dp 16 -o "$T/pt32" || bad "project: hybrid generate/project failed"
T32="$D/astra-sim/system/tpu_v3_32_2dtorus.json"
"$X" sim --workload "$T/t32" --network "$T/r32.yml" --system "$T32" --comm-group "$T/t32.comm_groups.json" >"$T/st"
"$X" sim --workload "$T/pt32" --network "$T/r32.yml" --system "$T32" --comm-group "$T/pt32.comm_groups.json" >"$T/spt"
ct=$(cycles "$T/st") cpt=$(cycles "$T/spt")
[ -n "$ct" ] && [ "$ct" = "$cpt" ] && ok "project: transformer hybrid 8 -> 32 same cycles ($ct)" ||
	bad "project: hybrid cycles $cpt vs $ct"
# and back down: 32 -> 8 is the one generated at 8
"$X" project "$T/t32" --dp 4 -o "$T/pt8" || bad "project: 32 -> 8 failed"
"$X" sim --workload "$T/t8" --network "$D/astra-sim/network/Ring_8npus.yml" --system "$SYS" --comm-group "$T/t8.comm_groups.json" >"$T/s1"
"$X" sim --workload "$T/pt8" --network "$D/astra-sim/network/Ring_8npus.yml" --system "$SYS" --comm-group "$T/pt8.comm_groups.json" >"$T/s2"
[ "$(cycles "$T/s1")" = "$(cycles "$T/s2")" ] && ok "project: hybrid 32 -> 8 same cycles" || bad "project: 32 -> 8 cycles differ"

# ---- replay of a generated workload: the network model's cycle ----
expect 1 "give --network and --system" "replay: collectives need a time" -- "$X" sim --replay --workload "$T/m8"
"$X" sim --replay --workload "$T/m8" --network "$T/r8.yml" --system "$SYS" --json >"$T/rj" 2>"$T/err" || bad "replay m8: $(cat "$T/err")"
it=$(jnum iteration_ns "$T/rj")
[ -n "$it" ] && [ "$it" = "$c8" ] && ok "replay: generated workload + network = chakra sim ($it)" ||
	bad "replay: $it ns vs chakra sim $c8"

# ---- errors and options ----
expect 0 "usage" "replay: help" -- "$X" sim --replay --help
expect 2 "required" "replay: no workload" -- "$X" sim --replay
expect 2 "unknown option" "replay: unknown option" -- "$X" sim --replay --workload "$T/m8" --frobnicate
expect 2 "REGEX=FACTOR" "replay: kernel-scale without factor" -- "$X" sim --replay --workload "$T/m8" --kernel-scale gemm
expect 2 "" "replay: kernel-scale bad factor" -- "$X" sim --replay --workload "$T/m8" --kernel-scale gemm=x
expect 1 "kernel-scale pattern" "replay: bad regular expression" -- "$X" sim --replay --workload "$T/m8" --network "$T/r8.yml" --system "$SYS" --kernel-scale '(=2'
expect 2 "go together" "replay: network without system" -- "$X" sim --replay --workload "$T/m8" --network "$T/r8.yml"
expect 1 "no workload" "replay: missing workload" -- "$X" sim --replay --workload "$T/nothing"
expect 2 "rank 9 is not in" "replay: compute-scale rank" -- "$X" sim --replay --workload "$T/m8" --compute-scale 9=2
expect 1 "tensor parallel over 1 ranks" "project: --tp is refused with the reason" -- "$X" project "$T/m2" --dp 4 --tp 2 -o "$T/tp"
[ ! -e "$T/tp.0.et" ] && ok "project: nothing written after an error" || bad "project: wrote after --tp error"
expect 1 "exists" "project: existing output" -- "$X" project "$T/m2" --dp 8 -o "$T/p8"
expect 0 "" "project: -f replaces" -- "$X" project "$T/m2" --dp 8 -o "$T/p8" -f
expect 1 "same file as input" "project: onto its input" -- "$X" project "$T/m2" --dp 2 -o "$T/m2" -f
expect 2 "required" "project: no --dp" -- "$X" project "$T/m2" -o "$T/x"
expect 2 "must be in" "project: --dp 0" -- "$X" project "$T/m2" --dp 0 -o "$T/x"
"$X" generate model --model dlrm --parallel hybrid --npus 8 --mp-group 2 -o "$T/d8" >/dev/null 2>&1
expect 1 "every rank of a hybrid" "project: dlrm's all-to-all over every rank is refused" -- "$X" project "$T/d8" --dp 8 -o "$T/d16"

# ---- ground truth through the CLI (docs/replay.md) ----
check_truth() { # name measured_us json
	p=$(jnum iteration_us "$3")
	if [ -z "$p" ]; then
		bad "truth $1: no iteration_us"
		return
	fi
	if awk -v p="$p" -v m="$2" 'BEGIN { e = (p - m) / m; exit !(e < 0.03 && e > -0.03) }'; then
		ok "truth $1: predicted $p us, measured $2 us"
	else
		bad "truth $1: predicted $p us, measured $2 us"
	fi
}
K="$D/kineto/hta-critical-path"
"$X" convert kineto "$K/cuda_event_sync/event_sync_trace.json.gz" --step 100 -o "$T/es.et" -q &&
"$X" sim --replay --workload "$T/es.et" --json >"$T/es.json" && check_truth cuda_event_sync 3154 "$T/es.json" ||
	bad "truth cuda_event_sync: convert/replay failed"
A='[param|pytorch.model.alex_net|0|0|0|measure|forward]'
"$X" convert kineto "$K/alexnet/benchmark_result_2869224_1695835535_trace.json.gz" --annotation "$A" --instance 1 -o "$T/ax.et" -q &&
"$X" sim --replay --workload "$T/ax.et" --json --timeline "$T/ax.tl.json" >"$T/ax.json" && check_truth alexnet 36356 "$T/ax.json" ||
	bad "truth alexnet: convert/replay failed"
grep -q '"traceEvents"' "$T/ax.tl.json" && ok "replay: --timeline written" || bad "replay: no timeline"
expect 1 "is one of the inputs\|same file" "replay: timeline onto the workload" -- "$X" sim --replay --workload "$T/ax.et" --timeline "$T/ax.et"
# what-if: every kernel 10x slower moves the iteration; the breakdown follows
"$X" sim --replay --workload "$T/ax.et" --kernel-scale '.*=10' --json >"$T/ax10.json" || bad "replay: kernel-scale run failed"
a1=$(jnum gpu_compute_us "$T/ax.json") a10=$(jnum gpu_compute_us "$T/ax10.json")
awk -v a="$a1" -v b="$a10" 'BEGIN { exit !(b > 9 * a) }' && ok "replay: --kernel-scale 10x: gpu compute $a1 -> $a10 us" ||
	bad "replay: --kernel-scale 10x: gpu compute $a1 -> $a10 us"
expect 1 "iterations between" "replay: --between an absent annotation" -- "$X" sim --replay --workload "$T/ax.et" --between nothing

exit $((fails > 0))
