#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Consumers of libchakra, built from outside this tree, then run on a real
# trace:
#   consumer.sh meson   a meson project with libchakra as a subproject
#                       (subprojects/libchakra -> this source tree;
#                       dependency('chakra') through override_dependency)
#   consumer.sh cmake SANITIZE
#                       a CMake project against this build installed into a
#                       scratch DESTDIR: find_package(chakra) ->
#                       chakra::chakra (and chakra::chakra_static)
set -u
S=${CHAKRA_SOURCE:?}
B=${CHAKRA_BUILD:?}
. "$S/tests/need.sh" && need_data data/chakra/chakra.0.et.gz
TRACE=$CHAKRA_SHARED/data/chakra/chakra.0.et.gz
T=$(mktemp -d "${TMPDIR:-/tmp}/consumer.XXXXXX") || exit 1
fail() { echo "FAIL: $*"; [ -f "$T/log" ] && tail -30 "$T/log"; rm -rf "$T"; exit 1; }
expect() { # program output must name the version and every node
	case $1 in *": 3664 nodes fed"*) echo "$1" ;; *) fail "unexpected output: $1" ;; esac
}
case ${1:-} in
meson)
	cp -r "$S/tests/embed/consumer-meson" "$T/proj" && mkdir "$T/proj/subprojects" &&
		ln -s "$S" "$T/proj/subprojects/libchakra" || fail "copying the project"
	meson setup "$T/b" "$T/proj" >"$T/log" 2>&1 || fail "meson setup of the consumer"
	meson compile -C "$T/b" >>"$T/log" 2>&1 || fail "building the consumer"
	out=$(LD_LIBRARY_PATH="$T/b/subprojects/libchakra/lib" "$T/b/consumer" "$TRACE") ||
		fail "running the consumer"
	expect "$out"
	;;
cmake)
	SAN=${2:-none}
	command -v cmake >/dev/null || { echo "SKIP: cmake not found"; rm -rf "$T"; exit 77; }
	meson install -C "$B" --no-rebuild --quiet --destdir "$T/dest" >"$T/log" 2>&1 ||
		fail "meson install"
	cfg=$(find "$T/dest" -name chakraConfig.cmake | head -n 1)
	[ -n "$cfg" ] || fail "no chakraConfig.cmake installed"
	prefix=$(cd "$(dirname "$cfg")/../../../.." && pwd)
	case $cfg in */lib/cmake/*) prefix=$(cd "$(dirname "$cfg")/../../.." && pwd) ;; esac
	flags=
	[ "$SAN" = none ] || flags="-fsanitize=$SAN"
	cmake -S "$S/tests/embed/consumer-cmake" -B "$T/cb" -DCMAKE_PREFIX_PATH="$prefix" \
		-DCMAKE_C_FLAGS="-Wall -Werror $flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
		>"$T/log" 2>&1 || fail "cmake configure (find_package(chakra))"
	cmake --build "$T/cb" >>"$T/log" 2>&1 || fail "cmake build"
	libdir=$(dirname "$(find "$T/dest" -name 'libchakra.so.*' | head -n 1)")
	out=$(LD_LIBRARY_PATH="$libdir" "$T/cb/consumer" "$TRACE") || fail "running the consumer"
	expect "$out"
	if [ -x "$T/cb/consumer_static" ]; then
		out=$("$T/cb/consumer_static" "$TRACE") || fail "running the static consumer"
		expect "$out (static)"
	fi
	;;
*)
	fail "usage: consumer.sh meson | cmake [SANITIZE]"
	;;
esac
rm -rf "$T"
echo "consumer ${1} OK"
