#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Chakra paper's simulation experiments (docs/paper-experiments.md):
# ASTRA-sim 1.0 text workloads -> chakra convert text -> chakra sim, at 4,
# 16 and 64 NPUs on a 2D torus (62 GB/s links) and on a two-level switched
# system (600 / 37.5 GB/s), plus bandwidth sweeps, under strong scaling (the
# default: a fixed global batch split over the NPUs) and, for contrast, weak
# scaling (the text's per-NPU compute kept at every size).
#
#   usage: tests/sim/paper_experiments.sh [--check] [--csv FILE] [--svg DIR]
#                                         [CHAKRA_EXE] [SHARED_DIR]
#   default       print Markdown tables on stdout
#   --csv FILE    also write every run as CSV (one row per simulation)
#   --svg DIR     also draw the plots (docs/plot.py) into DIR
#   --check       print nothing but ok/FAIL lines for the paper's claims this
#                 chain reproduces (and the contrasts the doc states); exit
#                 status = number of failures (the sim-paper test)
set -eu
. "$(dirname "$0")/../need.sh" && need_data data/astra-sim/text_workloads
check=0 csv= svg=
while [ $# -gt 0 ]; do
	case $1 in
	--check) check=1; shift;;
	--csv) csv=$2; shift 2;;
	--svg) svg=$2; shift 2;;
	-*) echo "paper_experiments.sh: unknown option $1" >&2; exit 2;;
	*) break;;
	esac
done
X=${1:-${CHAKRA_EXE:-build/tools/chakra}}
S=${2:-${CHAKRA_SHARED:-tests}}
HERE=$(cd "$(dirname "$0")" && pwd)
TXT="$S/data/astra-sim/text_workloads"
[ -x "$X" ] || { echo "paper_experiments.sh: $X: no chakra executable" >&2; exit 2; }
[ -d "$TXT" ] || { echo "paper_experiments.sh: $TXT: no text workloads" >&2; exit 2; }
T=$(mktemp -d /tmp/chakra-paper-XXXXXX)
trap 'rm -rf "$T"' EXIT

WORKLOADS="MLP_ModelParallel MLP_HybridParallel_Data_Model MLP_HybridParallel_Model_Data DLRM_HybridParallel Transformer_HybridParallel"
SIZES="4 16 64"
square() { case $1 in 4) echo 2x2;; 16) echo 4x4;; 64) echo 8x8;; esac; }
# The DGX-2-shaped variant: up to 16 NPUs behind the first-level switch.
dgx2() { case $1 in 4) echo 4x1;; 16) echo 8x2;; 64) echo 16x4;; esac; }

cat >"$T/sys.json" <<'SYS'
{ "scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 4,
  "all-reduce-implementation": ["ring", "ring"], "all-gather-implementation": ["ring", "ring"],
  "reduce-scatter-implementation": ["ring", "ring"], "all-to-all-implementation": ["ring", "ring"],
  "collective-optimization": "localBWAware", "local-mem-bw": 1600, "boost-mode": 0 }
SYS

RES="$T/results.csv"
echo "scaling,workload,npus,network,dims,bw0,bw1,model,finish,compute,exposed,comm" >"$RES"

# run SCALING WL N KIND DIMS BW0 BW1 [MODEL]: convert (once per
# scaling/wl/dims), simulate (congestion-unaware unless MODEL), append a row with the NPU that finishes last (its compute,
# exposed communication and total communication busy time).
run() {
	sc=$1 wl=$2 n=$3 kind=$4 dims=$5 b0=$6 b1=$7 model=${8:-unaware}
	p="$T/$sc-$wl-$dims"
	if [ ! -f "$p.0.et" ]; then
		case $sc in
		strong) flag=--strong-scaling;;
		# model-split: the text as the 4-NPU split of the model, each
		# NPU's compute shrinking as the model is cut into more pieces
		model-split) flag="--compute-scale $(awk -v n="$n" 'BEGIN { print 4 / n }')";;
		*) flag=;;
		esac
		"$X" convert text "$TXT/$wl.txt" --npus "$n" --dims "$dims" $flag -o "$p" >/dev/null
	fi
	topo="Ring, Ring"; [ "$kind" = switch ] && topo="Switch, Switch"
	nf="$T/net-$kind-$dims-$b0-$b1.yml"
	printf 'topology: [ %s ]\nnpus_count: [ %s, %s ]\nbandwidth: [ %s, %s ]\nlatency: [ 500.0, 500.0 ]\n' \
		"$topo" "${dims%x*}" "${dims#*x}" "$b0" "$b1" >"$nf"
	"$X" sim --workload "$p" --network "$nf" --system "$T/sys.json" \
		--comm-group "$p.comm_groups.json" --model "$model" --json >"$T/out.json"
	tr '{' '\n' <"$T/out.json" | awk -F'[:,}]' -v pre="$sc,$wl,$n,$kind,$dims,$b0,$b1,$model" '
		/"npu":/ { for (i = 1; i < NF; i++) { if ($i ~ /"finish_cycles"/) f = $(i+1)
		  if ($i ~ /"compute_cycles"/) c = $(i+1); if ($i ~ /"exposed_comm_cycles"/) e = $(i+1)
		  if ($i ~ /"comm_busy_cycles"/) b = $(i+1) }
		  if (f + 0 > bf + 0) { bf = f; bc = c; be = e; bb = b } }
		END { if (bf == "") exit 1; print pre "," bf "," bc "," be "," bb }' >>"$RES"
}

for n in $SIZES; do
	sq=$(square $n)
	for wl in $WORKLOADS; do
		for sc in strong weak; do
			run $sc $wl $n torus "$sq" 62 62
			run $sc $wl $n switch "$sq" 600 37.5
		done
		run strong $wl $n torus "$sq" 31 31
		[ $check = 1 ] && continue # the claims need no more
		run strong $wl $n torus "$sq" 128 128
		for bw in "150 18.75" "300 37.5" "600 75"; do run strong $wl $n switch "$sq" $bw; done
		run strong $wl $n switch "$(dgx2 $n)" 600 37.5
	done
done
# Sensitivity runs the doc discusses: the Transformer under the
# congestion-aware model (routed dimension by dimension) and, at 64 NPUs,
# with a 4x16 layout (its model-parallel group of 4 = dimension 0); MLP
# model-parallel with its compute split over the model-parallel degree.
if [ $check = 0 ]; then
	for n in $SIZES; do
		run strong Transformer_HybridParallel $n torus "$(square $n)" 62 62 aware
		run strong Transformer_HybridParallel $n switch "$(square $n)" 600 37.5 aware
		for bw in 31 62; do run model-split MLP_ModelParallel $n torus "$(square $n)" $bw $bw; done
	done
	for m in unaware aware; do
		run strong Transformer_HybridParallel 64 torus 4x16 62 62 $m
		run strong Transformer_HybridParallel 64 switch 4x16 600 37.5 $m
	done
fi
if [ -n "$csv" ]; then cp "$RES" "$csv"; fi
if [ -n "$svg" ]; then python3 "$HERE/../../docs/plot.py" "$RES" "$svg"; fi

# get SCALING WL N KIND DIMS BW0 BW1 FIELD (finish|compute|exposed|comm),
# of the $MODEL run
MODEL=unaware
get() {
	awk -F, -v k="$1,$2,$3,$4,$5,$6,$7,$MODEL" -v f="$8" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		index($0, k ",") == 1 { print $col[f]; found = 1; exit }
		END { if (!found) { print "paper_experiments.sh: no result for " k > "/dev/stderr"; exit 1 } }' "$RES" ||
		: >"$T/missing"
}
us() { awk -v c="$1" 'BEGIN { printf "%.1f", c / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; }

if [ $check = 1 ]; then
	fails=0
	ok() { echo "ok   $*"; }
	bad() { echo "FAIL $*"; fails=$((fails + 1)); }
	# cmp A OP B TEXT: a numeric comparison that prints ok/FAIL with its figures
	cmp() { if awk -v a="$1" -v b="$3" "BEGIN { exit !(a $2 b) }"; then ok "$4 ($1 $2 $3)"; else bad "$4 ($1 $2 $3)"; fi; }
	trf() { get strong Transformer_HybridParallel $1 torus "$(square $1)" 62 62 $2; }
	cmp "$(trf 4 finish)" '>' "$(trf 16 finish)" "Transformer, torus, strong: faster 4 -> 16 NPUs"
	cmp "$(trf 16 finish)" '>' "$(trf 64 finish)" "Transformer, torus, strong: faster 16 -> 64 NPUs"
	cmp "$(trf 4 compute)" '>' "$(awk -v c="$(trf 4 comm)" 'BEGIN { print 10 * c }')" \
		"Transformer, torus, 4 NPUs: compute > 10x communication"
	w64=$(get weak Transformer_HybridParallel 64 torus 8x8 62 62 finish)
	cmp "$w64" '>' "$(trf 4 finish)" "Transformer, torus, weak: 64 NPUs slower than 4 (the contrast)"
	for kind in torus switch; do
		b=62; c=62; [ $kind = switch ] && b=600 c=37.5
		prev=0
		for n in $SIZES; do
			e=$(get strong MLP_ModelParallel $n $kind "$(square $n)" $b $c exposed)
			cmp "$e" '>' "$prev" "MLP model-parallel, $kind, $n NPUs: exposed communication grows"
			prev=$e
		done
	done
	e=$(get strong MLP_ModelParallel 64 torus 8x8 31 31 exposed)
	c=$(get strong MLP_ModelParallel 64 torus 8x8 31 31 compute)
	cmp "$e" '>' "$(awk -v c="$c" 'BEGIN { print 4 * c }')" \
		"MLP model-parallel, torus 31 GB/s, 64 NPUs: exposed communication > 4x compute"
	for n in 16 64; do
		for wl in MLP_HybridParallel_Data_Model MLP_HybridParallel_Model_Data DLRM_HybridParallel; do
			cmp "$(get strong $wl $n torus "$(square $n)" 62 62 finish)" '<' \
				"$(get strong $wl $n switch "$(square $n)" 600 37.5 finish)" "$wl, $n NPUs: torus beats switched"
		done
	done
	dm=$(get strong MLP_HybridParallel_Data_Model 64 torus 8x8 62 62 finish)
	md=$(get strong MLP_HybridParallel_Model_Data 64 torus 8x8 62 62 finish)
	cmp "$dm" '==' "$md" "MLP hybrids on the symmetric torus: same finish"
	dm=$(get strong MLP_HybridParallel_Data_Model 64 switch 8x8 600 37.5 finish)
	md=$(get strong MLP_HybridParallel_Model_Data 64 switch 8x8 600 37.5 finish)
	cmp "$dm" '!=' "$md" "MLP hybrids on the switched system: different finish"
	exit $fails
fi

# Tables. Times in µs (1 cycle = 1 ns).
scaling_table() { # SCALING KIND BW0 BW1 SHAPEFN
	echo "| workload | NPUs (dims) | finish µs | compute µs | exposed comm µs | total comm µs | exposed ÷ compute | speed-up vs 4 |"
	echo "|---|---|---|---|---|---|---|---|"
	for wl in $WORKLOADS; do
		f4=
		for n in $SIZES; do
			d=$($5 $n)
			f=$(get $1 $wl $n $2 $d $3 $4 finish); c=$(get $1 $wl $n $2 $d $3 $4 compute)
			e=$(get $1 $wl $n $2 $d $3 $4 exposed); b=$(get $1 $wl $n $2 $d $3 $4 comm)
			[ -z "$f4" ] && f4=$f
			echo "| $wl | $n ($d) | $(us "$f") | $(us "$c") | $(us "$e") | $(us "$b") | $(ratio "$e" "$c") | $(ratio "$f4" "$f")× |"
		done
	done
	echo
}
echo "### Strong scaling (default): 2D torus, 62 GB/s links"
echo
scaling_table strong torus 62 62 square
echo "### Strong scaling: two-level switched, 600 / 37.5 GB/s"
echo
scaling_table strong switch 600 37.5 square
echo "### Strong scaling: two-level switched, DGX-2 shaped (4×1, 8×2, 16×4), 600 / 37.5 GB/s"
echo
scaling_table strong switch 600 37.5 dgx2
echo "### Strong scaling: Transformer under the congestion-aware model, finish in µs (compute / exposed comm)"
echo
echo "| network | 4 NPUs | 16 NPUs | 64 NPUs |"
echo "|---|---|---|---|"
MODEL=aware
for kind in torus switch; do
	b0=62 b1=62 name="torus 62"; [ $kind = switch ] && b0=600 b1=37.5 name="switched 600/37.5"
	row="| $name"
	for n in $SIZES; do
		d=$(square $n)
		row="$row | $(us "$(get strong Transformer_HybridParallel $n $kind $d $b0 $b1 finish)") ($(us "$(get strong Transformer_HybridParallel $n $kind $d $b0 $b1 compute)") / $(us "$(get strong Transformer_HybridParallel $n $kind $d $b0 $b1 exposed)"))"
	done
	echo "$row |"
done
MODEL=unaware
echo
echo "### Strong scaling: Transformer at 64 NPUs by layout and network model, finish in µs (exposed comm)"
echo
echo "| layout | torus 62, unaware | torus 62, aware | switched 600/37.5, unaware | switched 600/37.5, aware |"
echo "|---|---|---|---|---|"
for d in 8x8 4x16; do
	row="| $d"
	for cfg in "torus 62 62 unaware" "torus 62 62 aware" "switch 600 37.5 unaware" "switch 600 37.5 aware"; do
		set -- $cfg
		MODEL=$4
		row="$row | $(us "$(get strong Transformer_HybridParallel 64 $1 $d $2 $3 finish)") ($(us "$(get strong Transformer_HybridParallel 64 $1 $d $2 $3 exposed)"))"
	done
	echo "$row |"
done
MODEL=unaware
echo
echo "### MLP model-parallel with compute split over the model-parallel degree (× 4/N), finish in µs (compute / exposed comm, exposed ÷ compute)"
echo
echo "| NPUs | torus 31 | torus 62 |"
echo "|---|---|---|"
for n in $SIZES; do
	row="| $n"
	for bw in 31 62; do
		d=$(square $n)
		c=$(get model-split MLP_ModelParallel $n torus $d $bw $bw compute)
		e=$(get model-split MLP_ModelParallel $n torus $d $bw $bw exposed)
		row="$row | $(us "$(get model-split MLP_ModelParallel $n torus $d $bw $bw finish)") ($(us "$c") / $(us "$e"), $(ratio "$e" "$c")×)"
	done
	echo "$row |"
done
echo
echo "### Weak scaling (contrast): finish in µs (compute / exposed comm), speed-up vs 4 NPUs"
echo
echo "| workload | network | 4 NPUs | 16 NPUs | 64 NPUs |"
echo "|---|---|---|---|---|"
for wl in $WORKLOADS; do
	for kind in torus switch; do
		b0=62 b1=62; [ $kind = switch ] && b0=600 b1=37.5
		row="| $wl | $kind" f4=
		for n in $SIZES; do
			d=$(square $n)
			f=$(get weak $wl $n $kind $d $b0 $b1 finish)
			[ -z "$f4" ] && f4=$f
			row="$row | $(us "$f") ($(us "$(get weak $wl $n $kind $d $b0 $b1 compute)") / $(us "$(get weak $wl $n $kind $d $b0 $b1 exposed)")) $(ratio "$f4" "$f")×"
		done
		echo "$row |"
	done
done
echo
echo "### Bandwidth sweep, strong scaling: finish in µs (exposed comm / compute)"
echo
echo "| workload | NPUs | torus 31 | torus 62 | torus 128 | switched 150/18.75 | switched 300/37.5 | switched 600/75 |"
echo "|---|---|---|---|---|---|---|---|"
for wl in $WORKLOADS; do
	for n in $SIZES; do
		row="| $wl | $n"
		for cfg in "torus 31 31" "torus 62 62" "torus 128 128" "switch 150 18.75" "switch 300 37.5" "switch 600 75"; do
			set -- $cfg
			d=$(square $n)
			f=$(get strong $wl $n $1 $d $2 $3 finish)
			row="$row | $(us "$f") ($(ratio "$(get strong $wl $n $1 $d $2 $3 exposed)" "$(get strong $wl $n $1 $d $2 $3 compute)")×)"
		done
		echo "$row |"
	done
done
# A table cell without its run is an error, not a silent 0.
[ ! -f "$T/missing" ]
