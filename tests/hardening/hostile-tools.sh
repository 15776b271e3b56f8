#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Hostile inputs for the command-line tools: a million-node dependency
# cycle and a node with 10^6 parents for `chakra validate` / `chakra feed`,
# JSON nested 10^6 deep for `chakra pack`. Each must end with a clear
# message and exit status 1 (or the right answer) in bounded time; nothing
# is written on failure. Usage: hostile-tools.sh TEST_HOSTILE_EXE
set -u
gen=$1
chakra=${CHAKRA_EXE:?}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# A million-node cycle: validate reports it.
"$gen" write cycle "$t/cycle.et" || bad "cannot generate the cycle trace"
timeout 120 "$chakra" validate "$t/cycle.et" >"$t/v.out" 2>&1
rc=$?
[ $rc -eq 1 ] || bad "validate on a million-node cycle: exit $rc"
grep -qi cycle "$t/v.out" || bad "validate does not name the cycle: $(head -c 300 "$t/v.out")"
[ "$(wc -c <"$t/v.out")" -lt 65536 ] || bad "validate output is unbounded ($(wc -c <"$t/v.out") bytes)"
echo "validate cycle: exit $rc: $(head -c 200 "$t/v.out" | head -2)"

# feed stops with the cycle named.
timeout 120 "$chakra" feed "$t/cycle.et" >"$t/f.out" 2>"$t/f.err"
rc=$?
[ $rc -eq 1 ] || bad "feed on a million-node cycle: exit $rc"
grep -qi cycle "$t/f.err" || bad "feed does not name the cycle: $(head -c 300 "$t/f.err")"

# A node with 10^6 parents: valid; fed last.
"$gen" write parents "$t/parents.et" || bad "cannot generate the parents trace"
timeout 120 "$chakra" validate "$t/parents.et" >"$t/v2.out" 2>&1 || bad "validate on 10^6 parents: $(head -c 300 "$t/v2.out")"
timeout 120 "$chakra" feed "$t/parents.et" >"$t/f2.out" 2>"$t/f2.err" || bad "feed on 10^6 parents: $(head -c 300 "$t/f2.err")"
[ "$(tail -1 "$t/f2.out")" = 1000000 ] || bad "the child is not issued last: $(tail -1 "$t/f2.out")"
[ "$(wc -l <"$t/f2.out")" -eq 1000001 ] || bad "feed issued $(wc -l <"$t/f2.out") nodes"

# ids near UINT64_MAX keep their order.
"$gen" write maxids "$t/max.et" || bad "cannot generate the max-id trace"
"$chakra" feed "$t/max.et" >"$t/f3.out" 2>&1 || bad "feed on max ids: $(cat "$t/f3.out")"
[ "$(tr '\n' ' ' <"$t/f3.out")" = "18446744073709551615 18446744073709551614 18446744073709551613 0 " ] ||
	bad "max-id order: $(tr '\n' ' ' <"$t/f3.out")"

# JSON nested 10^6 deep: pack refuses it cleanly and writes nothing.
deep() { head -c 1000000 /dev/zero | tr '\0' "$1"; }
{ deep '['; deep ']'; } >"$t/deep-array.json"
{ printf '{"metadata":{"version":"0.0.4","attr":[]},"nodes":[{"id":1,"attr":[{"name":"x","kind":"int64","value":'
  deep '['; } >"$t/deep-value.json"
{ printf '{"metadata":'; head -c 3000000 /dev/zero | sed 's/\x00\x00\x00/{"a":/g'; } >"$t/deep-object.json"
for j in deep-array deep-value deep-object; do
	timeout 60 "$chakra" pack "$t/$j.json" -o "$t/$j.et" >"$t/p.out" 2>&1
	rc=$?
	[ $rc -eq 1 ] || bad "pack $j: exit $rc: $(head -c 300 "$t/p.out")"
	[ -s "$t/p.out" ] || bad "pack $j: no message"
	[ "$(wc -c <"$t/p.out")" -lt 4096 ] || bad "pack $j: message of $(wc -c <"$t/p.out") bytes"
	[ ! -e "$t/$j.et" ] || bad "pack $j left an output file"
	ls "$t" | grep -q "$j.et.tmp" && bad "pack $j left a temporary file"
	echo "pack $j: exit $rc: $(head -c 200 "$t/p.out")"
done
exit $fail
