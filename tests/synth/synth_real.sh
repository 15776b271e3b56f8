#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# synth on real and generated workloads, end to end (suite novalgrind):
#   chakra.0.et (one rank of an 8-GPU ResNet run): fit -> sample --npus 8
#   -> every rank validates, the simulator runs it to the end, the same
#   seed gives the same bytes, KS <= 0.1 for message sizes and compute
#   durations, simulated iteration time within 5% of the real trace's on
#   the same system (Ring_8npus, the real rank on every NPU);
#   the PyTorch ET and Kineto traces of tests/data through the converters,
#   the same checks;
#   nine generated model workloads (MLP/DLRM/Transformer x data/model/
#   hybrid, 16 NPUs on a 4x4 torus), the same checks;
#   no original node name or string attribute in any output (byte scan).
# Prints every figure it checks. $1 = the scan_names program.
set -u
X="$CHAKRA_EXE"
SCAN="$1"
D="$CHAKRA_SHARED/data"
T=$(mktemp -d /tmp/chakra-synth-real-XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
run() { # WHAT -- command...
	what=$1
	shift 2
	if "$@" >"$T/out" 2>"$T/err"; then ok "$what"; else bad "$what: $(head -c 400 "$T/err")"; fi
}
# check_ks FILE: every message size per type and every compute duration
# of a class with at least 100 real nodes has KS <= 0.1 (and the pooled
# ones); prints them.
check_ks() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = 0
for x in d["distributions"]:
    n = x["name"]
    gated = n in ("size/all", "duration/all") or n.startswith("size/") or \
        (n.startswith("duration/") and x["n_real"] >= 100)
    flag = ""
    if gated and x["ks"] > 0.1:
        bad += 1
        flag = "  <-- KS > 0.1"
    if gated or n in ("fanin", "fanout", "chain_length", "overlap"):
        print("     %-26s n %6d / %6d  KS %.4f%s" % (n, x["n_real"], x["n_synth"], x["ks"], flag))
it = d.get("iteration")
if it:
    print("     iteration: real %d, synthetic %d cycles, ratio %.4f" % (it["real_cycles"], it["synth_cycles"], it["ratio"]))
    if abs(it["ratio"] - 1) > 0.05:
        bad += 1
sys.exit(1 if bad else 0)
PY
}

# ---- chakra.0.et ----
R="$D/chakra/chakra.0.et.gz"
NET="$D/astra-sim/network/Ring_8npus.yml"
SYS="$D/astra-sim/system/Ring_4chunks.json"
run "fit chakra.0" -- "$X" synth fit "$R" -o "$T/c0.json"
run "sample --npus 8" -- "$X" synth sample "$T/c0.json" --npus 8 --seed 1 -o "$T/s"
run "sample --npus 8 again" -- "$X" synth sample "$T/c0.json" --npus 8 --seed 1 -o "$T/s2"
same=1
for r in 0 1 2 3 4 5 6 7; do cmp -s "$T/s.$r.et" "$T/s2.$r.et" || same=0; done
[ $same = 1 ] && ok "same seed, same bytes (8 ranks)" || bad "same seed, different bytes"
run "8 ranks validate" -- "$X" validate --strict "$T"/s.?.et
run "simulate the 8 ranks to the end" -- "$X" sim --workload "$T/s" --network "$NET" --system "$SYS" --json
grep -q '"finish_cycles":[1-9]' "$T/out" && ok "finished: $(sed -n 's/.*"finish_cycles":\([0-9]*\).*/\1/p' "$T/out") cycles" \
	|| bad "no finish time"
if "$X" synth compare "$R" "$T/s" --network "$NET" --system "$SYS" --json >"$T/c0-cmp.json" 2>"$T/err" \
	&& check_ks "$T/c0-cmp.json"; then ok "chakra.0: KS and iteration time"; else bad "chakra.0: KS or iteration time $(cat "$T/err")"; fi
run "anonymize chakra.0" -- "$X" anonymize "$R" -o "$T/a.et"
run "anonymize chakra.0 --perturb 0.1" -- "$X" anonymize "$R" -o "$T/p.et" --perturb 0.1 --seed 9
run "anonymized validates" -- "$X" validate "$T/a.et" "$T/p.et"
"$X" jsonize "$R" >"$T/r.json" 2>/dev/null
"$X" jsonize "$T/a.et" >"$T/a.json" 2>/dev/null
"$X" jsonize "$T/p.et" >"$T/p.json" 2>/dev/null
if python3 - "$T/r.json" "$T/a.json" "$T/p.json" <<'PY'
import json, sys
r, a, p = (json.load(open(f))["nodes"] for f in sys.argv[1:4])
assert len(r) == len(a) == len(p), "node counts"
vocab = set()
for x, y, z in zip(r, a, p):
    for k in ("id", "type", "data_deps", "ctrl_deps", "start_time_micros"):
        assert x.get(k) == y.get(k) == z.get(k), (k, x["id"])
    assert x.get("duration_micros") == y.get("duration_micros")
    d, e = x.get("duration_micros", 0), z.get("duration_micros", 0)
    assert abs(e - d) <= 0.1 * d + 0.5, ("perturbation bound", x["id"], d, e)
    assert "inputs" not in y and "outputs" not in y
    vocab.add(y["name"])
    names = {t["name"] for t in y.get("attr", [])}
    assert names <= {"is_cpu_op", "comm_type", "comm_size", "involved_dim"}, names
print("     anonymized: %d nodes, graph and times kept, names now %s" % (len(a), sorted(vocab)))
PY
then ok "anonymize keeps the graph, drops the rest"; else bad "anonymize structure"; fi
if "$SCAN" "$R" "$T/c0.json" "$T"/s.?.et "$T/a.et" "$T/p.et"; then ok "no name or string of chakra.0 in any output"
else bad "names found in outputs"; fi

# ---- real traces through the converters (chakra convert pytorch/kineto) ----
P="$D/pytorch" K="$D/kineto"
cv() { # NAME -- convert command...
	name=$1
	shift 2
	if "$@" -q -o "$T/$name.0.et" 2>"$T/err"; then :; else bad "convert $name: $(head -c 300 "$T/err")"; return 1; fi
	"$X" synth fit "$T/$name" -o "$T/$name.model.json" -q 2>"$T/err" || { bad "fit $name: $(cat "$T/err")"; return 1; }
	"$X" synth sample "$T/$name.model.json" --npus 8 --seed 1 -o "$T/$name.syn" 2>"$T/err" || { bad "sample $name: $(cat "$T/err")"; return 1; }
	echo "   $name:"
	if "$X" synth compare "$T/$name" "$T/$name.syn" --network "$NET" --system "$SYS" --json >"$T/$name.cmp.json" 2>"$T/err" \
		&& check_ks "$T/$name.cmp.json"; then ok "$name: KS and iteration time"; else bad "$name: $(cat "$T/err")"; fi
	"$SCAN" "$T/$name.0.et" "$T/$name.model.json" "$T/$name.syn.0.et" >/dev/null \
		&& ok "$name: no name in outputs" || bad "$name: names found in outputs"
}
cv resnet50-ddp -- "$X" convert pytorch --et "$P/param-resnet50-ddp/resnet_1gpu_et.json.gz"
cv param-linear -- "$X" convert pytorch --et "$P/param-linear/linear_et.json.gz" --kineto "$P/param-linear/linear_kineto.json.gz"
cv hta-simple-add -- "$X" convert pytorch --et "$P/hta-simple-add/benchmark_simple_add_et.json.gz" \
	--kineto "$P/hta-simple-add/benchmark_simple_add_trace.json.gz"
cv chakra-allgather -- "$X" convert pytorch --et "$P/chakra-allgather/1.0.2-chakra.0.0.4.json"
cv kineto-nccl -- "$X" convert kineto "$K/hta-nccl/nccl_data.json.gz" --step 5
cv kineto-alexnet -- "$X" convert kineto "$(ls "$K"/hta-critical-path/alexnet/*.json*)"

# ---- generated model workloads ----
printf 'topology: [ Ring, Ring ]\nnpus_count: [4, 4]\nbandwidth: [50.0, 50.0]\nlatency: [500.0, 500.0]\n' >"$T/t44.yml"
TSYS="$D/astra-sim/system/tpu_v3_32_2dtorus.json"
for m in mlp dlrm transformer; do
	for p in data model hybrid; do
		w="$T/$m-$p"
		"$X" generate model --model $m --parallel $p --npus 16 -o "$w" >/dev/null 2>&1 || { bad "generate $m $p"; continue; }
		"$X" synth fit "$w" -o "$w.model.json" -q 2>"$T/err" || { bad "fit $m $p: $(cat "$T/err")"; continue; }
		"$X" synth sample "$w.model.json" --npus 16 --seed 1 -o "$w.syn" 2>"$T/err" || { bad "sample $m $p: $(cat "$T/err")"; continue; }
		echo "   $m $p:"
		if "$X" synth compare "$w" "$w.syn" --network "$T/t44.yml" --system "$TSYS" --json >"$w.cmp.json" 2>"$T/err" \
			&& check_ks "$w.cmp.json"; then ok "$m $p: KS and iteration time"; else bad "$m $p: $(cat "$T/err")"; fi
		g=""
		[ -e "$w.syn.comm_groups.json" ] && g="$w.syn.comm_groups.json"
		"$SCAN" "$w.0.et" "$w.model.json" "$w.syn.0.et" "$w.syn.15.et" $g >/dev/null \
			&& ok "$m $p: no name in outputs" || bad "$m $p: names found in outputs"
	done
done
# A scale never run: the 16-rank hybrid transformer at 64 NPUs (8x8).
printf 'topology: [ Ring, Ring ]\nnpus_count: [8, 8]\nbandwidth: [50.0, 50.0]\nlatency: [500.0, 500.0]\n' >"$T/t88.yml"
run "sample the hybrid transformer at 64 NPUs" -- "$X" synth sample "$T/transformer-hybrid.model.json" --npus 64 --seed 2 -o "$T/th64"
run "simulate it to the end" -- "$X" sim --workload "$T/th64" --network "$T/t88.yml" --system "$TSYS" --comm-group "$T/th64.comm_groups.json"
exit $fails
