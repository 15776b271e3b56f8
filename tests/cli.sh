# SPDX-License-Identifier: Apache-2.0
# Sourced by the command-line tests: `. "$(dirname "$0")/../cli.sh" &&
# cli_tmp NAME` makes the scratch directory $T (removed at exit) and gives
#   ok WHAT / bad WHAT       a passed / failed check (bad counts $fails)
#   expect STATUS PATTERN WHAT -- command...
#                            the command's exit status, and PATTERN in its
#                            stderr (with CLI_EXPECT_STDOUT=1, or stdout)
# Each script ends with `exit $((fails > 0))`.
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
cli_tmp() {
	T=$(mktemp -d "/tmp/chakra-$1-XXXXXX") || exit 1
	trap 'rm -rf "$T"' EXIT
}
expect() {
	st=$1 pat=$2 what=$3
	shift 4
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	_where="$T/err"
	[ "${CLI_EXPECT_STDOUT:-0}" = 1 ] && _where="$T/err $T/out"
	if [ "$got" -ne "$st" ]; then
		bad "$what: exit $got, want $st ($(head -c 300 "$T/err"))"
	# shellcheck disable=SC2086 # $_where is one or two file names
	elif [ -n "$pat" ] && ! grep -q -- "$pat" $_where; then
		bad "$what: output lacks '$pat': $(head -c 300 "$T/err")"
	else
		ok "$what"
	fi
}
