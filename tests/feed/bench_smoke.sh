#!/bin/sh
# Smoke run of the feeder benchmark on a small generated trace: it must
# feed every node and print the feed, floor, ratio and memory lines.
set -eu
: "${CHAKRA_EXE:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$CHAKRA_EXE" generate synthetic 20000 -o "$tmp/s.0.et"
"$CHAKRA_EXE" bench feed "$tmp/s.0.et" --repeat 1 > "$tmp/out.txt"
cat "$tmp/out.txt"
grep -q "^nodes      20000$" "$tmp/out.txt"
grep -q "^feed .*nodes/s" "$tmp/out.txt"
grep -q "^floor .*read + frame only" "$tmp/out.txt"
grep -q "^ratio " "$tmp/out.txt"
grep -q "^peak RSS " "$tmp/out.txt"
"$CHAKRA_EXE" bench feed "$tmp/s.0.et" --deps both --order file --repeat 1 | grep -q "deps       both, order file"
