#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Build ASTRA-sim's analytical backends on libchakra (docs/embedding.md).
#
#   bindings/cpp/astra-sim/build.sh TARBALL OUTDIR [PATCH]
#
# TARBALL: the ASTRA-sim source snapshot (tests/data/astra-sim-src/
# astra-sim-analytical-src.tar.gz); PATCH: its offline-build patch (default:
# offline.patch next to the tarball). Unpacks the snapshot into OUTDIR/src,
# applies the patch, generates the protobuf code ASTRA-sim includes, replaces
# the contents of extern/graph_frontend/chakra/src/feeder_v3/ with the
# FeederV3 layer of bindings/cpp/feeder_v3 (no ASTRA-sim file is edited),
# and builds both backends against libchakra, leaving
# OUTDIR/bin/AstraSim_Analytical_Congestion_Unaware and ..._Aware.
#
# libchakra: the static library of CHAKRA_BUILD (a meson build folder of
# this repository) if set, else one built in OUTDIR/libchakra. JOBS: build
# parallelism (default: the number of CPUs). Needs cmake, g++, protoc,
# libprotobuf-dev, libyaml-cpp-dev, libspdlog-dev, libfmt-dev, meson, ninja.
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 TARBALL OUTDIR [PATCH]" >&2
	exit 2
fi
tarball=$(realpath "$1")
patchfile=$(realpath "${3:-$(dirname "$tarball")/offline.patch}")
mkdir -p "$2"
out=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
jobs=${JOBS:-$(nproc)}
for f in "$tarball" "$patchfile"; do
	[ -f "$f" ] || { echo "$0: $f: no such file" >&2; exit 1; }
done
for t in cmake g++ protoc meson ninja tar patch; do
	command -v $t >/dev/null || { echo "$0: $t not found (docs/embedding.md lists the packages)" >&2; exit 1; }
done

# 1. libchakra, static: the binaries need nothing at run time.
if [ -n "${CHAKRA_BUILD:-}" ]; then
	cbuild=$(cd "$CHAKRA_BUILD" && pwd)
else
	cbuild=$out/libchakra
	[ -f "$cbuild/build.ninja" ] ||
		meson setup "$cbuild" "$repo" -Dtests=false -Dbuildtype=release >"$out/libchakra-setup.log" 2>&1 ||
		{ tail -20 "$out/libchakra-setup.log" >&2; exit 1; }
fi
echo "libchakra: $cbuild"
ninja -C "$cbuild" lib/libchakra.a >"$out/libchakra-build.log" 2>&1 ||
	{ tail -20 "$out/libchakra-build.log" >&2; exit 1; }
cflags="-I$repo/include -I$repo/bindings/cpp/include"
libs="$cbuild/lib/libchakra.a -lprotobuf-nanopb -lz -lm"

# 2. The snapshot, patched, with its protobuf code.
rm -rf "$out/src" "$out/build" "$out/bin"
mkdir -p "$out/src"
tar -xzf "$tarball" -C "$out/src"
astra=$out/src/astra-sim
patch -s -d "$astra" -p1 <"$patchfile"
proto=$astra/extern/graph_frontend/chakra/schema/protobuf
protoc --proto_path="$proto" --cpp_out="$proto" --python_out="$proto" "$proto/et_def.proto"

# 3. The seam: the feeder folder's contents become the layer.
feeder=$astra/extern/graph_frontend/chakra/src/feeder_v3
rm -f "$feeder"/*
cp "$repo/bindings/cpp/feeder_v3/et_feeder.h" "$repo/bindings/cpp/feeder_v3/et_feeder.cpp" "$feeder/"

# 4. ASTRA-sim's own CMake build, with libchakra added.
echo "building ASTRA-sim in $out/build (log: $out/build.log)"
if ! { cmake -S "$astra/build/astra_analytical" -B "$out/build" -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_CXX_FLAGS="$cflags" -DCMAKE_CXX_STANDARD_LIBRARIES="$libs" &&
	cmake --build "$out/build" -j"$jobs"; } >"$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" | head -30 >&2
	echo "$0: ASTRA-sim build failed: $out/build.log" >&2
	exit 1
fi
mkdir -p "$out/bin"
for b in AstraSim_Analytical_Congestion_Unaware AstraSim_Analytical_Congestion_Aware; do
	cp "$out/build/bin/$b" "$out/bin/$b"
done
echo "done: $out/bin"
