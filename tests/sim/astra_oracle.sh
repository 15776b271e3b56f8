#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Build stock ASTRA-sim's analytical backends (the oracle of sim_diff.py)
# from the source snapshot in tests/data/astra-sim-src, as its README says:
# unpack, apply offline.patch, generate the protobuf code, cmake. About 5
# minutes on 2 cores; a finished build in OUTDIR is reused.
#
#   tests/sim/astra_oracle.sh [OUTDIR]      (default: build-astra-oracle)
#
# Prints the folder holding AstraSim_Analytical_Congestion_{Unaware,Aware}
# on the last line. Exit 77 when the build tools are missing (cmake, g++,
# protoc, libprotobuf-dev, libyaml-cpp-dev, libspdlog-dev, libfmt-dev).
set -u
cd "$(dirname "$0")/../.."
out=${1:-build-astra-oracle}
mkdir -p "$out" && out=$(cd "$out" && pwd)
src=tests/data/astra-sim-src
bin=$out/build/bin
if [ -x "$bin/AstraSim_Analytical_Congestion_Unaware" ] &&
   [ -x "$bin/AstraSim_Analytical_Congestion_Aware" ]; then
	echo "$bin"
	exit 0
fi
for t in cmake g++ protoc tar patch; do
	command -v $t >/dev/null || { echo "skipped: $t not found"; exit 77; }
done
for h in /usr/include/yaml-cpp/yaml.h /usr/include/spdlog/spdlog.h /usr/include/fmt/core.h \
         /usr/include/google/protobuf/message.h; do
	[ -f "$h" ] || { echo "skipped: $h not found (libyaml-cpp-dev, libspdlog-dev, libfmt-dev, libprotobuf-dev)"; exit 77; }
done
[ -f "$src/astra-sim-analytical-src.tar.gz" ] || { echo "skipped: no $src"; exit 77; }
rm -rf "$out/astra-sim" "$out/build"
tar -xzf "$src/astra-sim-analytical-src.tar.gz" -C "$out" || exit 1
patch -s -d "$out/astra-sim" -p1 <"$src/offline.patch" || exit 1
P=$out/astra-sim/extern/graph_frontend/chakra/schema/protobuf
protoc --proto_path="$P" --cpp_out="$P" --python_out="$P" "$P/et_def.proto" || exit 1
log=$out/build.log
if ! { cmake -S "$out/astra-sim/build/astra_analytical" -B "$out/build" \
           -DCMAKE_BUILD_TYPE=Release && cmake --build "$out/build" -j"${JOBS:-2}"; } >"$log" 2>&1; then
	tail -30 "$log"
	exit 1
fi
echo "$bin"
