#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Smoke run of the feeder benchmark on a small generated trace: it must
# feed every node and print the feed, floor, ratio and memory lines.
set -u
C=${CHAKRA_EXE:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/feed-bench.XXXXXX") || exit 1
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
"$C" generate synthetic 20000 -o "$tmp/s.0.et" || fail "generate"
"$C" bench feed "$tmp/s.0.et" --repeat 1 > "$tmp/out.txt" || fail "bench exit status"
cat "$tmp/out.txt"
grep -q "^nodes      20000$" "$tmp/out.txt" || fail "node count"
grep -q "^feed .*nodes/s" "$tmp/out.txt" || fail "feed line"
grep -q "^floor .*read + frame only" "$tmp/out.txt" || fail "floor line"
grep -q "^ratio " "$tmp/out.txt" || fail "ratio line"
grep -q "^peak RSS " "$tmp/out.txt" || fail "RSS line"
"$C" bench feed "$tmp/s.0.et" --deps both --order file --repeat 1 |
	grep -q "deps       both, order file" || fail "options"
rm -rf "$tmp"
exit $fails
