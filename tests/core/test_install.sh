#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A program outside the build tree compiles and links against the
# INSTALLED library using only `pkg-config --cflags --libs chakra`.
# Installs into a private DESTDIR (safe beside parallel builds) and lets
# pkg-config's sysroot prefix the paths. $1 = the build's b_sanitize, so a
# sanitized library is linked with the same runtime.
set -u
. "$(dirname "$0")/../need.sh" && need_data data/chakra/chakra.0.et.gz
B=${CHAKRA_BUILD:?}
S=${CHAKRA_SHARED:?}
SAN=${1:-none}
T=$(mktemp -d "${TMPDIR:-/tmp}/core-install.XXXXXX") || exit 1
# (no `trap ... EXIT`: dash leaks memory for it, which CI's valgrind step counts)
die() { echo "FAIL: $*" >&2; rm -rf "$T"; exit 1; }
command -v pkg-config > /dev/null || die "pkg-config not found"
CC=${CC:-cc}

meson install -C "$B" --no-rebuild --quiet --destdir "$T/dest" > "$T/install.log" 2>&1 ||
	{ cat "$T/install.log" >&2; die "meson install"; }
pc=$(find "$T/dest" -name chakra.pc | head -n 1)
[ -n "$pc" ] || die "no chakra.pc installed"
so=$(find "$T/dest" -name 'libchakra.so.*' | head -n 1)
[ -n "$so" ] || die "no libchakra.so installed"
find "$T/dest" -path '*/include/chakra/chakra.h' | grep -q . || die "headers not installed"

export PKG_CONFIG_PATH="$(dirname "$pc")"
export PKG_CONFIG_SYSROOT_DIR="$T/dest"
cflags=$(pkg-config --cflags chakra) && libs=$(pkg-config --libs chakra) ||
	die "pkg-config chakra"
echo "pkg-config: $cflags $libs"
case $cflags in *"$T/dest"*) ;; *) die "cflags do not point into the install" ;; esac

cat > "$T/prog.c" <<'EOF2'
#include <stdio.h>
#include <chakra/chakra.h>

int main(int argc, char **argv)
{
	if (chakra_version() != CHAKRA_VERSION_NUMBER) {
		fprintf(stderr, "header %u, library %u\n", CHAKRA_VERSION_NUMBER, chakra_version());
		return 1;
	}
	chakra_reader *r;
	if (argc < 2 || chakra_reader_open(&r, argv[1], NULL) < 0) {
		fprintf(stderr, "%s\n", argc < 2 ? "usage" : chakra_reader_errmsg(r));
		return 1;
	}
	const chakra_node *n;
	int rc;
	while ((rc = chakra_reader_next(r, &n)) > 0)
		;
	if (rc < 0) {
		fprintf(stderr, "%s\n", chakra_reader_errmsg(r));
		return 1;
	}
	printf("%llu nodes, libchakra %s\n", (unsigned long long)chakra_reader_node_count(r),
	       chakra_version_string());
	chakra_reader_close(r);
	return 0;
}
EOF2
extra=
[ "$SAN" = none ] || extra="-fsanitize=$SAN"
# shellcheck disable=SC2086 # word splitting of pkg-config output is intended
(cd "$T" && $CC -std=c11 -Wall -Wextra -Werror $extra $cflags prog.c -o prog $libs) ||
	die "compiling against the installed library"
out=$(LD_LIBRARY_PATH="$(dirname "$so")" "$T/prog" "$S/data/chakra/chakra.0.et.gz") ||
	die "running the program"
echo "$out"
# it must have loaded the installed copy
LD_DEBUG=libs LD_LIBRARY_PATH="$(dirname "$so")" "$T/prog" "$S/data/chakra/chakra.0.et.gz" 2>&1 |
	grep -q "$T/dest.*libchakra" || die "did not load the installed libchakra"
[ "$out" = "3664 nodes, libchakra $(pkg-config --modversion chakra)" ] ||
	die "unexpected output"
rm -rf "$T"
echo "installed library OK"
