#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `chakra feed` on the real trace prints exactly the reference feeder's
# order; --deps both feeds it to the end; bad input exits 1 with a message;
# the synthetic generator is deterministic.
set -u
. "$(dirname "$0")/../need.sh" && need_data data/chakra/chakra.0.et.gz data/chakra/chakra.0.order-v1.txt
C=${CHAKRA_EXE:?}
T="${CHAKRA_SHARED:?}/data/chakra/chakra.0.et.gz"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/feed-cmd.XXXXXX") || exit 1
# (no `trap ... EXIT`: dash leaks memory for it, which CI's valgrind step counts)
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

"$C" feed "$T" > "$tmp/order.txt" || fail "feed exit status"
cmp "$tmp/order.txt" "$CHAKRA_SHARED/data/chakra/chakra.0.order-v1.txt" ||
	fail "order differs from the reference feeder's"

"$C" feed --deps both "$T" > "$tmp/both.txt" 2> "$tmp/both.err" || fail "--deps both exit status"
[ "$(wc -l < "$tmp/both.txt")" -eq 3664 ] || fail "--deps both: not every node issued"
[ "$(sort -n "$tmp/both.txt" | uniq | wc -l)" -eq 3664 ] || fail "--deps both: repeats"
grep -q "control dependencies ignored" "$tmp/both.err" || fail "--deps both: no warning count"

# A small window: cycles of control and data edges are broken while reading on.
"$C" feed --deps both --window 100 "$T" 2> /dev/null | sort -n | uniq > "$tmp/w100.txt"
[ "$(wc -l < "$tmp/w100.txt")" -eq 3664 ] || fail "--deps both --window 100"

# Several in flight, file order: every node once.
"$C" feed --inflight 8 --order file "$T" | sort -n | uniq > "$tmp/n8.txt"
[ "$(wc -l < "$tmp/n8.txt")" -eq 3664 ] || fail "--inflight 8"

# Strict: the real trace's self control edge is an error naming the node.
"$C" feed --deps both --strict "$T" > /dev/null 2> "$tmp/strict.err" && fail "strict run passed"
grep -q "node id 3322 (node index 1386, byte 767516) lists itself as a control dependency" \
	"$tmp/strict.err" || fail "strict message"

# Truncated input: exit 1, the file and byte offset named.
gzip -dc "$T" | head -c 100000 > "$tmp/cut.0.et"
"$C" feed "$tmp/cut.0.et" > /dev/null 2> "$tmp/cut.err"
[ $? -eq 1 ] || fail "truncated: exit status"
grep -q "cut.0.et.*byte" "$tmp/cut.err" || fail "truncated: message"

# Usage errors exit 2.
"$C" feed --deps nope "$T" > /dev/null 2>&1
[ $? -eq 2 ] || fail "bad --deps: exit status"
"$C" feed > /dev/null 2>&1
[ $? -eq 2 ] || fail "no trace: exit status"
"$C" feed --help | grep -q "usage: chakra feed" || fail "--help"

# The generator is deterministic for a seed and its output feeds to the end.
"$C" generate synthetic 3000 -o "$tmp/a.0.et" --seed 7 || fail "generate"
"$C" generate synthetic 3000 -o "$tmp/b.0.et" --seed 7 || fail "generate again"
cmp "$tmp/a.0.et" "$tmp/b.0.et" || fail "generate: not deterministic"
[ "$("$C" feed --deps both "$tmp/a.0.et" | wc -l)" -eq 3000 ] || fail "synthetic: feed"
"$C" generate synthetic 10 -o "$tmp/a.0.et" 2> /dev/null && fail "generate overwrote a file"
"$C" generate synthetic 10 -o "$tmp/a.0.et" --force || fail "generate --force"
"$C" generate synthetic 500 -o "$tmp/g.0.et.gz" --gzip || fail "generate --gzip"
[ "$("$C" feed "$tmp/g.0.et.gz" | wc -l)" -eq 500 ] || fail "synthetic gzip: feed"

rm -rf "$tmp"
[ $fails -eq 0 ] && echo "all feed command checks passed"
exit $fails
