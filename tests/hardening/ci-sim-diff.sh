#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# CI step: `chakra sim` against ASTRA-sim on random small configurations
# (tests/sim/sim_diff.py, docs/sim.md), both network models: every NPU's
# finish cycle must agree; then on converted real traces and random
# workloads shaped like them (tests/sim/sim_diff_traces.py): finish and
# exposed communication. The oracle is the ASTRA-sim build of the
# ci-astra-sim step when there is one (ASTRA-sim on libchakra: the same
# system and network layers; the microbenchmarks are one node per NPU),
# else stock ASTRA-sim built here from tests/data/astra-sim-src
# (tests/sim/astra_oracle.sh, ~5 min). Skipped (passes, with a note) when
# neither can be had.
set -u
cd "$(dirname "$0")/../.."
X=${CHAKRA_EXE:-}
for b in build-ci build; do
	[ -z "$X" ] && [ -x "$b/tools/chakra" ] && X=$PWD/$b/tools/chakra
done
[ -x "$X" ] || { echo "no chakra executable (build-ci)"; exit 1; }
bin=${CHAKRA_ASTRA_SIM_BIN:-}
a=${ASTRA_OUT:-${CI_WORK:-$PWD}/build-astra-sim}/bin
if [ -z "$bin" ] && [ -x "$a/AstraSim_Analytical_Congestion_Aware" ]; then
	bin=$a
	echo "oracle: $bin (the ci-astra-sim build)"
fi
if [ -z "$bin" ]; then
	start=$(date +%s)
	# next to the CI builds (.ci/run keeps them out of the source tree)
	odir=build-astra-oracle
	[ -n "${ABI_BUILD:-}" ] && odir=$(dirname "$ABI_BUILD")/build-astra-oracle
	out=$(tests/sim/astra_oracle.sh "$odir")
	rc=$?
	if [ $rc = 77 ]; then
		echo "$out"
		echo "differential test skipped: no ASTRA-sim oracle"
		exit 0
	fi
	[ $rc = 0 ] || { echo "$out"; exit 1; }
	bin=$(printf '%s\n' "$out" | tail -1)
	echo "oracle: stock ASTRA-sim built in $(( $(date +%s) - start )) s: $bin"
fi
fails=0
for seed in 1 2 3; do
	CHAKRA_EXE=$X CHAKRA_ASTRA_SIM_BIN=$bin python3 tests/sim/sim_diff.py --count 150 --seed $seed ||
		fails=$((fails + 1))
done
# Converted real traces (every PyTorch ET and Kineto trace of tests/data,
# multi-rank conversions, chakra project and synth sample outputs), generated
# workloads (GPT over two and three parallel axes, ~3-5 s of it) and 100
# random workloads shaped like converted traces, both models (30-50 s).
start=$(date +%s)
CHAKRA_EXE=$X CHAKRA_ASTRA_SIM_BIN=$bin python3 tests/sim/sim_diff_traces.py || fails=$((fails + 1))
echo "converted traces: $(( $(date +%s) - start )) s"
exit $fails
