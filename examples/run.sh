#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The main job on a bundled example: generate one training iteration of a
# Transformer under hybrid (data + model) parallelism for 16 NPUs, check the
# traces, then simulate it on a 4x4 torus. Run from the repository root after
# building into build/.
set -e
chakra=${CHAKRA:-build/tools/chakra}
out=${1:-build/example}
mkdir -p "$out"
"$chakra" generate model --model transformer --parallel hybrid --npus 16 --dims 4x4 --force -o "$out/transformer"
"$chakra" validate "$out"/transformer.0.et "$out"/transformer.15.et
"$chakra" stats "$out/transformer.0.et"
"$chakra" sim --workload "$out/transformer" --network examples/torus-4x4.yml \
	--system examples/system-ring.json --comm-group "$out/transformer.comm_groups.json"
