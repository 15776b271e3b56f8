# SPDX-License-Identifier: Apache-2.0
# Shared by the analyze shell tests: $C = chakra, $T = the real trace,
# $D = a scratch folder removed at exit; fail/expect helpers.
set -u
C="$CHAKRA_EXE"
T="$CHAKRA_SHARED/data/chakra/chakra.0.et.gz"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# expect_rc RC CMD...: run CMD, stderr to $D/err, stdout to $D/out.
expect_rc() {
	want=$1; shift
	"$@" >"$D/out" 2>"$D/err"; got=$?
	[ "$got" = "$want" ] || { fail "exit $got, wanted $want: $*"; cat "$D/err" >&2; }
}
# expect_err TEXT: the last command's stderr holds TEXT.
expect_err() { grep -qF -- "$1" "$D/err" || { fail "stderr lacks '$1'"; cat "$D/err" >&2; }; }
# expect_line TEXT FILE: FILE has a line equal to TEXT (spaces squeezed).
expect_line() { tr -s ' ' <"$2" | grep -qxF -- "$1" || fail "$2 lacks line '$1'"; }
finish() { [ "$failures" = 0 ] && echo "all passed" || echo "$failures failure(s)"; exit "$failures"; }
