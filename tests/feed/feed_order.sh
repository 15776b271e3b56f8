#!/bin/sh
# `chakra feed` on the real trace prints exactly the reference feeder's
# order; --deps both feeds it to the end; bad input exits 1 with a message.
set -eu
: "${CHAKRA_EXE:?}" "${CHAKRA_SHARED:?}"
T="$CHAKRA_SHARED/data/chakra/chakra.0.et.gz"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$CHAKRA_EXE" feed "$T" > "$tmp/order.txt"
cmp "$tmp/order.txt" "$CHAKRA_SHARED/data/chakra/chakra.0.order-v1.txt"

"$CHAKRA_EXE" feed --deps both "$T" > "$tmp/both.txt" 2> "$tmp/both.err"
test "$(wc -l < "$tmp/both.txt")" -eq 3664
test "$(sort -n "$tmp/both.txt" | uniq | wc -l)" -eq 3664
grep -q "control dependencies ignored" "$tmp/both.err"

# Several in flight: every node once.
"$CHAKRA_EXE" feed --inflight 8 --order file "$T" | sort -n | uniq > "$tmp/n8.txt"
test "$(wc -l < "$tmp/n8.txt")" -eq 3664

# Strict: the real trace's self control edge is an error naming the node.
if "$CHAKRA_EXE" feed --deps both --strict "$T" > /dev/null 2> "$tmp/strict.err"; then
	echo "strict run should fail"; exit 1
fi
grep -q "lists itself as a control dependency" "$tmp/strict.err"

# Truncated input: exit 1, the file and byte offset named.
gzip -dc "$T" | head -c 100000 > "$tmp/cut.0.et"
if "$CHAKRA_EXE" feed "$tmp/cut.0.et" > /dev/null 2> "$tmp/cut.err"; then
	echo "truncated trace should fail"; exit 1
fi
grep -q "cut.0.et" "$tmp/cut.err"
grep -q "byte" "$tmp/cut.err"

# Usage errors exit 2.
set +e
"$CHAKRA_EXE" feed --deps nope "$T" > /dev/null 2>&1; test $? -eq 2 || exit 1
"$CHAKRA_EXE" feed > /dev/null 2>&1; test $? -eq 2 || exit 1
set -e

# The generator is deterministic for a seed and its output feeds to the end.
"$CHAKRA_EXE" generate synthetic 3000 -o "$tmp/a.0.et" --seed 7
"$CHAKRA_EXE" generate synthetic 3000 -o "$tmp/b.0.et" --seed 7
cmp "$tmp/a.0.et" "$tmp/b.0.et"
test "$("$CHAKRA_EXE" feed --deps both "$tmp/a.0.et" | wc -l)" -eq 3000
if "$CHAKRA_EXE" generate synthetic 10 -o "$tmp/a.0.et" 2> /dev/null; then
	echo "generate must not overwrite unasked"; exit 1
fi
echo ok
