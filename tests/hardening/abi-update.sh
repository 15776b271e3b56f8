#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Regenerate the ABI baseline abi/libchakra.abi from a -g build of the
# shared library (default build-ci, as .ci/run makes it). Run it when a
# release adds public symbols (compatible: ci-abi.sh passes but says so) or
# after an intended incompatible change together with a soversion bump in
# meson.build. Paths are left out so the file does not depend on where the
# tree was built, and without source locations, so regenerating it after
# unrelated edits does not churn the file.
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build-ci}
lib=$(ls "$build"/lib/libchakra.so.*.*.* | head -1)
mkdir -p abi
abidw --no-corpus-path --no-comp-dir-path --no-show-locs --headers-dir include/chakra \
	--drop-private-types "$lib" --out-file abi/libchakra.abi
echo "abi/libchakra.abi: $(grep -c '<elf-symbol ' abi/libchakra.abi) symbols from $lib"
