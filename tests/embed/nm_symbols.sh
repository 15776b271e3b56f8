#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every global symbol an archive defines is chakra_* (public) or chakra__*
# (shared internals): a program statically linked with libchakra (or with a
# module's archive) can use any other name for its own functions. Also
# checked: the nanopb descriptors (generated as chakra__pb_*). Names starting
# with __ are the compiler's (sanitizers add __odr_asan.*): reserved, no
# program can define them.
# Usage: nm_symbols.sh ARCHIVE...
set -u
NM=${NM:-nm}
status=0
for a in "$@"; do
	if ! out=$("$NM" -g --defined-only "$a" 2>&1); then
		echo "FAIL: $NM $a: $out"
		status=1
		continue
	fi
	bad=$(printf '%s\n' "$out" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ {print $3}' | grep -v '^chakra_' | grep -v '^__' | sort -u)
	total=$(printf '%s\n' "$out" | awk 'NF == 3 && $2 ~ /^[A-Z]$/' | wc -l)
	if [ -n "$bad" ]; then
		echo "FAIL: $a defines global symbols outside chakra_* / chakra__*:"
		printf '  %s\n' $bad
		status=1
	else
		echo "ok: $a: $total global symbols, all chakra_* / chakra__*"
	fi
done
exit $status
