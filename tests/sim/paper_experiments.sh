#!/bin/sh
# The Chakra paper's simulation experiments (docs/paper-experiments.md):
# ASTRA-sim 1.0 text workloads -> chakra convert text -> chakra sim, at 4,
# 16 and 64 NPUs on a 2D torus (62 GB/s links) and on a two-level switched
# system (600 / 37.5 GB/s), plus bandwidth sweeps at 64 NPUs. Prints
# Markdown tables on stdout.
#   usage: tests/sim/paper_experiments.sh [CHAKRA_EXE] [SHARED_DIR]
set -eu
X=${1:-${CHAKRA_EXE:-build/tools/chakra}}
S=${2:-${CHAKRA_SHARED:-../shared}}
TXT="$S/data/astra-sim/text_workloads"
T=$(mktemp -d /tmp/chakra-paper-XXXXXX)
trap 'rm -rf "$T"' EXIT

WORKLOADS="MLP_ModelParallel MLP_HybridParallel_Data_Model MLP_HybridParallel_Model_Data DLRM_HybridParallel Transformer_HybridParallel"

shape() { case $1 in 4) echo "2 2";; 16) echo "4 4";; 64) echo "8 8";; esac; }

# net KIND A B BW0 BW1 -> network file
net() {
	f="$T/net-$1-$2x$3-$4-$5.yml"
	topo="Ring, Ring"; [ "$1" = switch ] && topo="Switch, Switch"
	printf 'topology: [ %s ]\nnpus_count: [ %s, %s ]\nbandwidth: [ %s, %s ]\nlatency: [ 500.0, 500.0 ]\n' \
		"$topo" "$2" "$3" "$4" "$5" >"$f"
	echo "$f"
}
cat >"$T/sys.json" <<'SYS'
{ "scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 4,
  "all-reduce-implementation": ["ring", "ring"], "all-gather-implementation": ["ring", "ring"],
  "reduce-scatter-implementation": ["ring", "ring"], "all-to-all-implementation": ["ring", "ring"],
  "collective-optimization": "localBWAware", "local-mem-bw": 1600, "boost-mode": 0 }
SYS

# sim WL N NETFILE -> "finish compute exposed" of the NPU that finishes last
sim() {
	set -- $(shape "$2") "$1" "$2" "$3"
	a=$1 b=$2 wl=$3 n=$4 nf=$5
	p="$T/$wl-$n"
	[ -f "$p.0.et" ] || "$X" convert text "$TXT/$wl.txt" --npus "$n" --dims "${a}x${b}" -o "$p" >/dev/null
	"$X" sim --workload "$p" --network "$nf" --system "$T/sys.json" \
		--comm-group "$p.comm_groups.json" --json |
		tr '{' '\n' | awk -F'[:,]' '
			/"npu":/ { for (i = 1; i < NF; i++) { if ($i ~ /"finish_cycles"/) f = $(i+1);
			  if ($i ~ /"compute_cycles"/) c = $(i+1); if ($i ~ /"exposed_comm_cycles"/) e = $(i+1) }
			  if (f > bf) { bf = f; bc = c; be = e } }
			END { print bf, bc, be }'
}

us() { awk -v c="$1" 'BEGIN { printf "%.1f", c / 1000 }'; }

echo "### Scaling: finish time in µs (compute / exposed communication of the last NPU)"
echo
for kind in torus switch; do
	if [ $kind = torus ]; then echo "2D torus, 62 GB/s links:"; else echo "Two-level switched, 600 / 37.5 GB/s:"; fi
	echo
	echo "| workload | 4 NPUs | 16 NPUs | 64 NPUs |"
	echo "|---|---|---|---|"
	for wl in $WORKLOADS; do
		row="| $wl"
		for n in 4 16 64; do
			set -- $(shape $n)
			if [ $kind = torus ]; then nf=$(net torus $1 $2 62 62); else nf=$(net switch $1 $2 600 37.5); fi
			set -- $(sim $wl $n "$nf")
			row="$row | $(us $1) ($(us $2) / $(us $3))"
		done
		echo "$row |"
	done
	echo
done

echo "### Bandwidth sweep at 64 NPUs: finish time in µs (exposed communication / compute)"
echo
echo "| workload | torus 31 | torus 62 | torus 128 | switched 150/18.75 | switched 300/37.5 | switched 600/75 |"
echo "|---|---|---|---|---|---|---|"
for wl in $WORKLOADS; do
	row="| $wl"
	for cfg in "torus 31 31" "torus 62 62" "torus 128 128" "switch 150 18.75" "switch 300 37.5" "switch 600 75"; do
		set -- $cfg
		nf=$(net $1 8 8 $2 $3)
		set -- $(sim $wl 64 "$nf")
		row="$row | $(us $1) ($(awk -v e="$3" -v c="$2" 'BEGIN { printf "%.2f", c ? e / c : 0 }')×)"
	done
	echo "$row |"
done
