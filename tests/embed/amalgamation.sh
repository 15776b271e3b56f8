#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The amalgamation (lib/amalgamate.py) builds alone: chakra.c with the
# public headers beside it compiles with -Wall -Wextra -Wpedantic -Werror as
# C11 and as C++17 with the build's compiler (gcc and g++, clang and
# clang++), defines no global symbol outside chakra_* / chakra__*, and a C
# and a C++ program linked with it read, check (nanopb) and feed a real
# trace.
#   amalgamation.sh CC CXX AMALGAMATE.PY PB_DIR SOURCE.c...
set -u
CC=$1 CXX=$2 AMAL=$3 PB=$4
shift 4
S=${CHAKRA_SOURCE:?}
. "$S/tests/need.sh" && need_data data/chakra/chakra.0.et.gz
TRACE=$CHAKRA_SHARED/data/chakra/chakra.0.et.gz
T=$(mktemp -d "${TMPDIR:-/tmp}/amalgamation.XXXXXX") || exit 1
fail() { echo "FAIL: $*"; rm -rf "$T"; exit 1; }
python3 "$AMAL" "$T/out" "$PB" "$@" || fail "amalgamate.py"
echo "chakra.c: $(wc -l < "$T/out/chakra.c") lines; headers: $(ls "$T/out/chakra" | tr '\n' ' ')"
WARN="-Wall -Wextra -Wpedantic -Werror"
cd "$T/out" || fail "cd"
# shellcheck disable=SC2086
$CC -std=c11 $WARN -O1 -c chakra.c -I. -o "$T/c.o" || fail "$CC: chakra.c as C11"
# shellcheck disable=SC2086
$CXX -x c++ -std=c++17 $WARN -O1 -c chakra.c -I. -o "$T/cxx.o" || fail "$CXX: chakra.c as C++17"
for o in c.o cxx.o; do
	bad=$(nm -g --defined-only "$T/$o" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ {print $3}' |
		grep -v '^chakra_' | grep -v '^_')
	[ -z "$bad" ] || fail "$o defines symbols outside chakra_*:" $bad
done
# The C++ object's public functions have C linkage (extern "C" headers).
nm -g --defined-only "$T/cxx.o" | grep -q ' T chakra_reader_open$' ||
	fail "the C++ object does not define chakra_reader_open with C linkage"
# shellcheck disable=SC2086
$CC -std=c11 $WARN "$S/tests/hardening/abi_smoke.c" -I. "$T/c.o" -lprotobuf-nanopb -lz -lm \
	-o "$T/smoke_c" || fail "linking a C program"
cat > "$T/smoke.cpp" <<'EOF2'
// The same in C++, against the object compiled as C++.
#include <chakra/chakra.h>
#include <cstdio>
int main(int argc, char **argv)
{
	chakra_feeder_options fo;
	chakra_feeder_options_init(&fo, CHAKRA_FEEDER_OPTIONS_VERSION);
	chakra_feeder *f = nullptr;
	if (argc != 2 || chakra_feeder_open(&f, argv[1], &fo) < 0) {
		std::fprintf(stderr, "%s\n", chakra_feeder_errmsg(f));
		return 1;
	}
	const chakra_node *n;
	unsigned long long fed = 0;
	int rc;
	while ((rc = chakra_feeder_next(f, &n)) > 0) {
		(void)chakra_node_name(n, nullptr);
		chakra_feeder_complete(f, chakra_node_id(n));
		fed++;
	}
	std::printf("C++: %llu nodes fed (%s)\n", fed, rc == 0 ? "ok" : chakra_feeder_errmsg(f));
	chakra_feeder_close(f);
	return rc == 0 && fed == 3664 ? 0 : 1;
}
EOF2
# shellcheck disable=SC2086
$CXX -std=c++17 $WARN "$T/smoke.cpp" -I. "$T/cxx.o" -lprotobuf-nanopb -lz -lm \
	-o "$T/smoke_cxx" || fail "linking a C++ program"
"$T/smoke_c" "$TRACE" || fail "the C program"
"$T/smoke_cxx" "$TRACE" || fail "the C++ program"
rm -rf "$T"
echo "amalgamation OK ($CC, $CXX)"
