#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Python package installed the ways a user installs it, offline, then
# imported with no help from the build tree:
#  1. pip install ./bindings/python into a --target directory, and into a
#     venv (Debian's pip refuses the system site-packages: PEP 668);
#  2. the library found through pkg-config (PKG_CONFIG_PATH /
#     PKG_CONFIG_SYSROOT_DIR at a DESTDIR install), through the loader's
#     path (LD_LIBRARY_PATH, ctypes.util.find_library) and LIBCHAKRA_PATH;
#  3. `meson install` puts the package in a directory that /usr/bin/python3
#     searches (Debian: .../dist-packages, not meson's .../site-packages),
#     when it searches one under the build's prefix (a --prefix of one's
#     own, e.g. $HOME/.local on some systems or /opt/x, may have none: the
#     package then imports with PYTHONPATH, which is checked instead).
# $1 = the build's b_sanitize: a sanitized library cannot be loaded into a
# plain interpreter this way (tests/python/meson.build preloads runtimes).
set -u
S=${CHAKRA_SOURCE:?}
B=${CHAKRA_BUILD:?}
PY=/usr/bin/python3
[ -x $PY ] || { echo "SKIP: $PY not found"; exit 77; }
[ "${1:-none}" = none ] || { echo "SKIP: sanitized build ($1)"; exit 77; }
. "$S/tests/need.sh" && need_data data/chakra/chakra.0.et.gz
TRACE=$CHAKRA_SHARED/data/chakra/chakra.0.et.gz
T=$(mktemp -d "${TMPDIR:-/tmp}/py-install.XXXXXX") || exit 1
fail() { echo "FAIL: $*"; [ -f "$T/log" ] && tail -20 "$T/log"; rm -rf "$T"; exit 1; }
unset LIBCHAKRA_PATH PYTHONPATH PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
export PYTHONDONTWRITEBYTECODE=1
# A program run from an empty directory: nothing of the tree on sys.path.
mkdir "$T/run"
check='import libchakra, sys
r = libchakra.Reader(sys.argv[1])
n = sum(1 for _ in r)
print("%s: %d nodes, libchakra %s from %s" % (libchakra.__file__, n, ".".join(map(str, libchakra._lib.version)), libchakra._lib.path))
assert n == 3664'

# 1. pip, offline (the build backend is in the tree; nothing is fetched).
$PY -m pip install --no-index --no-cache-dir --target "$T/site" "$S/bindings/python" \
	>"$T/log" 2>&1 || fail "pip install --target"
$PY -m venv "$T/venv" >"$T/log" 2>&1 || fail "python3 -m venv"
"$T/venv/bin/python" -m pip install --no-index --no-cache-dir "$S/bindings/python" \
	>"$T/log" 2>&1 || fail "pip install into a venv"

# 2. The library from an install of this build.
meson install -C "$B" --no-rebuild --quiet --destdir "$T/dest" >"$T/log" 2>&1 ||
	fail "meson install"
pc=$(find "$T/dest" -name chakra.pc | head -n 1)
so=$(find "$T/dest" -name 'libchakra.so.*' | head -n 1)
libdir=$(dirname "$so")
[ -n "$pc" ] && [ -n "$so" ] || fail "no chakra.pc / libchakra.so installed"
(cd "$T/run" && PYTHONPATH="$T/site" PKG_CONFIG_PATH=$(dirname "$pc") \
	PKG_CONFIG_SYSROOT_DIR="$T/dest" $PY -c "$check" "$TRACE") >"$T/out" 2>&1 ||
	{ cat "$T/out"; fail "pip --target package, library through pkg-config"; }
grep -q "from $T/dest" "$T/out" || { cat "$T/out"; fail "not loaded through pkg-config"; }
cat "$T/out"
(cd "$T/run" && LD_LIBRARY_PATH="$libdir" "$T/venv/bin/python" -c "$check" "$TRACE") \
	>"$T/out" 2>&1 || { cat "$T/out"; fail "venv package, library on the loader's path"; }
grep -q "$T/venv/" "$T/out" || { cat "$T/out"; fail "not the venv's package"; }
cat "$T/out"
(cd "$T/run" && LIBCHAKRA_PATH="$so" PYTHONPATH="$T/site" $PY -c "$check" "$TRACE") \
	>"$T/out" 2>&1 || { cat "$T/out"; fail "LIBCHAKRA_PATH"; }
cat "$T/out"

# 3. Where meson install put the package: a directory /usr/bin/python3
# searches (after the prefix is stripped of the DESTDIR).
init=$(find "$T/dest" -path '*/libchakra/__init__.py' | head -n 1)
[ -n "$init" ] || fail "meson install did not install the Python package"
pkgdir=$(dirname "$(dirname "$init")")
real=${pkgdir#"$T/dest"}
prefix=$(meson introspect --buildoptions "$B" | $PY -c \
	'import json, sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
if [ -n "$($PY "$S/bindings/python/install_dir.py" "$prefix")" ]; then
	$PY -c 'import sys; sys.exit(0 if sys.argv[1] in sys.path else 1)' "$real" ||
		fail "meson installed the package to $real, which $PY does not search"
	echo "meson install: the package in $real (on $PY's sys.path)"
else
	echo "meson install: $PY searches no directory under the prefix $prefix;" \
		"the package is in $real (import it with PYTHONPATH)"
fi
(cd "$T/run" && PYTHONPATH="$pkgdir" LD_LIBRARY_PATH="$libdir" $PY -c "$check" "$TRACE") \
	>"$T/out" 2>&1 || { cat "$T/out"; fail "the meson-installed package"; }
cat "$T/out"
rm -rf "$T"
echo "python install OK"
