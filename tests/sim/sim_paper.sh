#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The paper-experiment chain on real text workloads: chakra convert text,
# then chakra sim. Pins what docs/paper-experiments.md reports for
# MLP model-parallel (exposed communication grows with NPUs) and checks that
# collectives addressed through the communicator-group file and through
# involved_dim time the same (the converter's groups are rows, columns or
# the whole grid, which the simulator runs on those dimensions).
set -u
. "$(dirname "$0")/../need.sh" && need_data data/astra-sim/text_workloads
X="$CHAKRA_EXE"
TXT="$CHAKRA_SHARED/data/astra-sim/text_workloads"
T=$(mktemp -d /tmp/chakra-sim-paper-XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
cat >"$T/sys.json" <<'SYS'
{ "scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 4,
  "all-reduce-implementation": ["ring", "ring"], "all-gather-implementation": ["ring", "ring"],
  "reduce-scatter-implementation": ["ring", "ring"], "all-to-all-implementation": ["ring", "ring"],
  "collective-optimization": "localBWAware", "local-mem-bw": 1600, "boost-mode": 0 }
SYS
field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" | head -1; }
prev=0
for s in 2 4 8; do
	n=$((s * s))
	"$X" convert text "$TXT/MLP_ModelParallel.txt" --npus $n --dims ${s}x${s} -o "$T/mlp$n" >/dev/null || fails=$((fails + 1))
	for kind in Ring Switch; do
		bw="62, 62"; [ $kind = Switch ] && bw="600, 37.5"
		printf 'topology: [ %s, %s ]\nnpus_count: [ %s, %s ]\nbandwidth: [ %s ]\nlatency: [ 500, 500 ]\n' \
			$kind $kind $s $s "$bw" >"$T/$kind$n.yml"
		"$X" sim --workload "$T/mlp$n" --network "$T/$kind$n.yml" --system "$T/sys.json" \
			--comm-group "$T/mlp$n.comm_groups.json" --json >"$T/$kind$n.g.json"
		"$X" sim --workload "$T/mlp$n" --network "$T/$kind$n.yml" --system "$T/sys.json" \
			--json >"$T/$kind$n.d.json"
		g=$(field finish_cycles <"$T/$kind$n.g.json")
		d=$(field finish_cycles <"$T/$kind$n.d.json")
		if [ -n "$g" ] && [ "$g" = "$d" ]; then
			echo "ok   $kind $n NPUs: groups and involved_dim agree ($g)"
		else
			echo "FAIL $kind $n NPUs: groups $g, involved_dim $d"; fails=$((fails + 1))
		fi
	done
	exposed=$(field exposed_comm_cycles <"$T/Ring$n.g.json")
	if [ "$exposed" -gt "$prev" ]; then
		echo "ok   $n NPUs on the torus: exposed communication $exposed grows"
	else
		echo "FAIL $n NPUs: exposed $exposed (before: $prev)"; fails=$((fails + 1))
	fi
	prev=$exposed
done
exit $fails
