#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# validate scales without recursion: a 200,000-node data-dependency cycle
# (one long chain closed by its first node) checked with a 1 MiB stack,
# where a recursive DFS would overflow. The cycle is reported in one line.
set -u
C=${CHAKRA_EXE:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/core-scale.XXXXXX") || exit 1
# (no `trap ... EXIT`: dash leaks memory for it, which CI's valgrind step counts)
die() { echo "FAIL: $*" >&2; rm -rf "$T"; exit 1; }
N=200000
awk -v n=$N 'BEGIN {
	printf "{\"metadata\":{\"version\":\"0.0.4\"},\"nodes\":[\n"
	for (i = 1; i <= n; i++)
		printf "%s{\"id\":%d,\"data_deps\":[%d]}\n", (i > 1 ? "," : ""), i, (i == 1 ? n : i - 1)
	printf "]}\n"
}' > "$T/chain.json"
"$C" pack "$T/chain.json" -o "$T/chain.et" || die "pack"
(ulimit -s 1024 && "$C" validate "$T/chain.et") > "$T/v.out"
rc=$?
cat "$T/v.out"
[ $rc -eq 1 ] || die "exit $rc, expected 1"
exp="$T/chain.et:8: node 1: data dependency cycle of $N nodes (each waits for the next): 1 -> $N -> 199999 -> 199998 -> 199997 -> 199996 -> 199995 -> 199994 -> 199993 -> 199992 -> 199991 -> 199990 -> 199989 -> 199988 -> 199987 -> ... ($((N - 15)) more) -> 1"
grep -qxF -- "$exp" "$T/v.out" || die "expected line: $exp"
grep -qxF -- "$T/chain.et: $N nodes, 1 error(s), 0 warning(s)" "$T/v.out" || die "summary"
rm -rf "$T"
echo "OK"
