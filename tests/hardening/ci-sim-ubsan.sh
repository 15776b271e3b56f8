#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# CI step: the simulator module (lib/sim) and its tests compiled by clang
# with -fsanitize=integer,float-cast-overflow,undefined, no recovery: an
# unsigned wrap, a lossy implicit conversion or a double that does not fit
# its integer stops the test (times saturate, never wrap). Only
# lib/sim (with what it is built over: lib/json, and the input sources
# lib/json reads through, as the modules build them) is instrumented; it
# links the ordinary libchakra of build-ci (the core's hashes wrap on
# purpose).
set -u
cd "$(dirname "$0")/../.."
command -v clang >/dev/null || { echo "skipped: no clang"; exit 0; }
b=${CHAKRA_BUILD:-${ABI_BUILD:-build-ci}}
[ -f "$b/lib/libchakra.so" ] || { echo "no $b/lib/libchakra.so (build-ci)"; exit 1; }
lib=$(cd "$b/lib" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags="-std=c11 -D_GNU_SOURCE -O1 -g -fsanitize=integer,float-cast-overflow,undefined
 -fno-sanitize-recover=all -DCHAKRA_EXPERIMENTAL -DCHAKRA__SOURCE_STANDALONE -Iinclude -Ilib
 -Ilib/sim -Ilib/json -Itests $(pkg-config --cflags yajl yaml-0.1 zlib)"
fails=0
for t in units engine api hostile rules; do
	if ! clang $flags -DCHAKRA_SHARED="\"$PWD/tests\"" lib/sim/*.c lib/sim/coll/*.c lib/json/*.c lib/source.c \
		tests/sim/test_sim_$t.c -L"$lib" -Wl,-rpath,"$lib" -lchakra $(pkg-config --libs yajl yaml-0.1 zlib) -lm \
		-o "$out/t_$t" 2>"$out/cc.log"; then
		echo "FAIL compile test_sim_$t:"; tail -20 "$out/cc.log"; fails=$((fails + 1)); continue
	fi
	if CHAKRA_SHARED=$PWD/tests UBSAN_OPTIONS=print_stacktrace=1 "$out/t_$t" >"$out/$t.log" 2>&1; then
		echo "ok   test_sim_$t"
	else
		echo "FAIL test_sim_$t:"; grep -m5 -A3 "runtime error\|CHECK failed" "$out/$t.log"
		fails=$((fails + 1))
	fi
done
exit $fails
