#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# CI step: the ABI of libchakra.so against the committed baseline, and an
# outside program built against the installed headers and library.
#  1. abidiff abi/libchakra.abi vs the built library (build-ci from .ci/run,
#     or a fresh build-ci-abi): an incompatible change fails unless the
#     SONAME major changed; additions and members appended to the structs
#     in abi/append-only.txt pass with a note to update the baseline
#     (tests/hardening/abi-update.sh, docs/hardening.md).
#  2. Only chakra_* symbols are exported (no leaked static dependencies).
#  3. meson install into a scratch DESTDIR; abi_smoke.c compiled with
#     pkg-config --cflags --libs chakra and run on a real trace.
set -u
cd "$(dirname "$0")/../.."
build=${ABI_BUILD:-build-ci}
if [ ! -f "$build/build.ninja" ]; then
	build=build-ci-abi
	if [ ! -f "$build/build.ninja" ]; then
		log=$(mktemp)
		meson setup "$build" -Dtests=false >"$log" 2>&1 || { tail -20 "$log"; rm -f "$log"; exit 1; }
		rm -f "$log"
	fi
fi
ninja -C "$build" >"$build/ci-abi-ninja.log" 2>&1 || { tail -20 "$build/ci-abi-ninja.log"; exit 1; }
lib=$(ls "$build"/lib/libchakra.so.*.*.* | head -1)
base=abi/libchakra.abi
fail=0
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

new_so=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
old_so=$(sed -n "1s/.*soname='\([^']*\)'.*/\1/p" "$base")
# The built library in the baseline's own form (abi-update.sh's flags), then
# the two compared as XML: abidiff on the .so with --headers-dir2 and
# --drop-private-types dropped every public type, so a grown or reordered
# struct went unseen. Leaf mode lists each changed type once, flat;
# abi/leaf_check.py accepts additions and members appended at the end of
# the structs in abi/append-only.txt (the library reads only the caller's
# version of those), and nothing else.
abidw --no-corpus-path --no-comp-dir-path --no-show-locs --headers-dir include/chakra \
	--drop-private-types "$lib" --out-file "$dest/new.abi" || { echo "ABI FAIL: abidw"; exit 1; }
abidiff --leaf-changes-only "$base" "$dest/new.abi" >"$dest/abidiff.log" 2>&1
rc=$?
grep -v '^$' "$dest/abidiff.log" | head -80
if [ $((rc & 3)) -ne 0 ]; then
	echo "ABI FAIL: abidiff could not compare (exit $rc)"
	fail=1
elif ! python3 abi/leaf_check.py abi/append-only.txt <"$dest/abidiff.log"; then
	if [ "$new_so" != "$old_so" ]; then
		echo "ABI: incompatible change with a new SONAME ($old_so -> $new_so): allowed;" \
			"regenerate the baseline with tests/hardening/abi-update.sh"
	else
		echo "ABI FAIL: incompatible change but the SONAME is still $new_so:" \
			"bump soversion in meson.build, or undo the change"
		fail=1
	fi
elif [ $((rc & 4)) -ne 0 ]; then
	echo "ABI ok: compatible changes only (additions, appended option members); record them" \
		"with tests/hardening/abi-update.sh"
else
	echo "ABI ok: identical to the baseline ($new_so)"
fi

others=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TDBRVW]/ {print $3}' | grep -v '^chakra_' | grep -v '^_' )
if [ -n "$others" ]; then
	echo "ABI FAIL: exported symbols outside chakra_*:" $others
	fail=1
else
	echo "exports: $(nm -D --defined-only "$lib" | grep -c ' chakra_') chakra_* functions, nothing else"
fi

# An outside consumer: installed headers + pkg-config + shared library.
if meson install -C "$build" --destdir "$dest/root" --no-rebuild >"$dest/install.log" 2>&1; then
	pc=$(find "$dest/root" -name chakra.pc | head -1)
	export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest/root
	libdir=$(dirname "$(find "$dest/root" -name 'libchakra.so.*' | head -1)")
	if ${CC:-cc} -std=c11 -Wall -Werror -o "$dest/abi_smoke" tests/hardening/abi_smoke.c \
		$(pkg-config --cflags --libs chakra) &&
		LD_LIBRARY_PATH="$libdir" "$dest/abi_smoke" tests/data/chakra/chakra.0.et.gz; then
		echo "consumer ok: built with pkg-config against the installed copy"
	else
		echo "ABI FAIL: a program built against the installed headers did not build or run"
		fail=1
	fi
else
	tail -20 "$dest/install.log"
	echo "ABI FAIL: meson install"
	fail=1
fi
exit $fail
