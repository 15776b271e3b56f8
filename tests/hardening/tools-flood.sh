#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Adversarial ids and quadratic paths, timed
# against a baseline in the same run (suite novalgrind):
# - 200,000 ids chosen so that the unkeyed hashes validate and stats used
#   put them all in one slot (they took > 60 s and 43 s): within 3x of the
#   same trace with ids 0..N-1 (+1 s for noise);
# - timeline lane assignment on N nested nodes (all overlap): doubling N at
#   most triples the time (O(n log n) ~2.1x; the old scan was O(n^2), 4x),
#   or the larger run takes under 3 s.
# Usage: tools-flood.sh MKFLOOD_EXE
set -u
gen=$1
C=${CHAKRA_EXE:?}
t=$(mktemp -d "${TMPDIR:-/tmp}/tools-flood.XXXXXX") || exit 1
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
now() { date +%s.%N; }
# secs CMD...: run, print the seconds it took
secs() { s=$(now); "$@" >/dev/null 2>&1; e=$(now); awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }'; }
N=200000
for m in seq validate-old stats-old pow2; do
	"$gen" $m $N "$t/$m.et" || bad "mkflood $m"
done
for cmd in validate stats; do
	base=$(secs "$C" $cmd "$t/seq.et")
	for m in validate-old stats-old pow2; do
		adv=$(secs "$C" $cmd "$t/$m.et")
		echo "$cmd: ids 0..N-1 ${base} s, $m ids ${adv} s"
		awk -v a="$adv" -v b="$base" 'BEGIN { exit !(a <= 3 * b + 1) }' ||
			bad "$cmd on $m ids: $adv s against $base s for ids 0..N-1"
	done
done
"$C" validate "$t/stats-old.et" >"$t/v.out" || bad "validate on chosen ids: $(tail -1 "$t/v.out")"
grep -q "200000 nodes, 0 error(s)" "$t/v.out" || bad "validate on chosen ids: $(tail -1 "$t/v.out")"

"$gen" lanes 50000 "$t/l1.csv" && "$gen" lanes 100000 "$t/l2.csv" || bad "mkflood lanes"
t1=$(secs "$C" timeline "$t/l1.csv" --npus 1 --frequency 1 -o "$t/l1.json")
t2=$(secs "$C" timeline "$t/l2.csv" --npus 1 --frequency 1 -o "$t/l2.json")
echo "timeline: 50,000 nested nodes ${t1} s, 100,000 ${t2} s"
awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(b <= 3 * a || b < 3) }' ||
	bad "timeline lanes: $t1 s for 50,000 nested nodes, $t2 s for 100,000 (quadratic?)"
[ "$(grep -o '"name":"thread_name"' "$t/l2.json" | wc -l)" -eq 100000 ] ||
	bad "timeline: 100,000 nested nodes need 100,000 lanes"
rm -rf "$t"
[ $fails -eq 0 ] && echo "flood: all checks passed"
exit $fails
