#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The installed tree as a consumer sees it: `meson install` into a scratch
# DESTDIR inside the build directory, then a C and a C++ program that take
# the address of every function every installed header declares
# (allfuncs.py, which also refuses a declaration without the export
# macro), compiled against the installed headers and linked against the
# installed libraries, then run:
#   installed.sh pkgconfig SANITIZE   through pkg-config (chakra-experimental
#                                     when the modules are installed, else chakra)
#   installed.sh cmake SANITIZE       through find_package(chakra): chakra::experimental
#                                     (skips, 77, without cmake)
set -u
S=${CHAKRA_SOURCE:?}
B=${CHAKRA_BUILD:?}
how=${1:-pkgconfig}
SAN=${2:-none}
[ "$how" = cmake ] && ! command -v cmake >/dev/null && { echo "SKIP: cmake not found"; exit 77; }
T=$(mktemp -d "$B/installed.XXXXXX") || exit 1
fail() { echo "FAIL: $*"; [ -f "$T/log" ] && tail -30 "$T/log"; rm -rf "$T"; exit 1; }
flags=
[ "$SAN" = none ] || flags="-fsanitize=$SAN"
meson install -C "$B" --no-rebuild --quiet --destdir "$T/dest" >"$T/log" 2>&1 || fail "meson install"
hdr=$(find "$T/dest" -name chakra.h -path '*/include/chakra/*' | head -n 1)
[ -n "$hdr" ] || fail "no chakra/chakra.h installed"
inc=$(dirname "$(dirname "$hdr")")
headers=$(cd "$inc" && find chakra -name '*.h' | sort)
n=$(python3 "$S/tests/embed/allfuncs.py" "$T/all.c" "$inc" $headers) || fail "header template: $n"
so=$(find "$T/dest" -name 'libchakra.so.*' | head -n 1)
libdir=$(dirname "$so")
run() { # the program must resolve and count every function
	out=$(LD_LIBRARY_PATH="$libdir" "$1") || fail "running $1: $out"
	case $out in *": $n functions resolved") echo "$(basename "$1"): $out" ;;
	*) fail "$1: unexpected output: $out" ;; esac
}
case $how in
pkgconfig)
	pc=$(find "$T/dest" -name chakra.pc | head -n 1)
	[ -n "$pc" ] || fail "no chakra.pc installed"
	pkg=chakra
	[ -f "$(dirname "$pc")/chakra-experimental.pc" ] && pkg=chakra-experimental
	export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$T/dest"
	cflags=$(pkg-config --cflags "$pkg") && libs=$(pkg-config --libs "$pkg") ||
		fail "pkg-config $pkg"
	cxx=$(command -v c++ || command -v g++ || command -v clang++) || fail "no C++ compiler"
	${CC:-cc} -std=c11 -Wall -Wextra -Werror $flags $cflags -o "$T/all_c" "$T/all.c" $libs \
		>>"$T/log" 2>&1 || fail "C program against $pkg"
	"$cxx" -std=c++17 -Wall -Wextra -Werror -x c++ $flags $cflags -o "$T/all_cxx" "$T/all.c" \
		-x none $libs >>"$T/log" 2>&1 || fail "C++ program against $pkg"
	echo "pkg-config $pkg: $n functions in $(echo $headers | wc -w) headers"
	run "$T/all_c"
	run "$T/all_cxx"
	;;
cmake)
	cfg=$(find "$T/dest" -name chakraConfig.cmake | head -n 1)
	[ -n "$cfg" ] || fail "no chakraConfig.cmake installed"
	prefix=$(cd "$(dirname "$cfg")/../../../.." && pwd)
	case $cfg in */lib/cmake/*) prefix=$(cd "$(dirname "$cfg")/../../.." && pwd) ;; esac
	cmake -S "$S/tests/embed/consumer-all" -B "$T/cb" -DCMAKE_PREFIX_PATH="$prefix" \
		-DALL_C="$T/all.c" -DCMAKE_C_FLAGS="-Wall -Werror $flags" \
		-DCMAKE_CXX_FLAGS="-Wall -Werror $flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
		>"$T/log" 2>&1 || fail "cmake configure (find_package(chakra))"
	cmake --build "$T/cb" >>"$T/log" 2>&1 || fail "cmake build"
	echo "cmake: $n functions in $(echo $headers | wc -w) headers"
	run "$T/cb/all_c"
	run "$T/cb/all_cxx"
	;;
*)
	fail "usage: installed.sh pkgconfig | cmake [SANITIZE]"
	;;
esac
rm -rf "$T"
