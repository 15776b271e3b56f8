#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The converters, the replay, the group readers and synth on inputs that
# were quadratic or amplifying (docs/hardening.md, "Quadratic time and
# amplification"; mkhostile.c makes them), timed in the same run against a
# benign input of the same size, or against half the input (doubling the
# input at most triples the time: quadratic would quadruple it), with a
# second of slack for a loaded machine. Suite novalgrind.
# Usage: tools-quadratic.sh MKHOSTILE_EXE
set -u
gen=$1
C=${CHAKRA_EXE:?}
D=${CHAKRA_SHARED:?}/data
t=$(mktemp -d "${TMPDIR:-/tmp}/tools-quadratic.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
now() { date +%s.%N; }
# secs CMD...: run, print the seconds it took (its output in $t/last.*)
secs() { s=$(now); "$@" >"$t/last.out" 2>"$t/last.err"; e=$(now); awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }'; }
within() { # WHAT HOSTILE BASE: hostile within 3x base + 1 s
	echo "$1: ${3} s benign, ${2} s hostile"
	awk -v a="$2" -v b="$3" 'BEGIN { exit !(a <= 3 * b + 1) }' || bad "$1: $2 s against $3 s"
}

# converter: names on one run of slots of the old string table; (pid, tid)
# pairs on one old pair key; one thread's ops 2 ms apart (idle-gap rule)
N=50000
for m in names threads gaps; do
	"$gen" $m $N "$t/$m.json" && "$gen" $m-benign $N "$t/$m-b.json" || bad "mkhostile $m"
	b=$(secs "$C" convert kineto "$t/$m-b.json" -o "$t/$m-b.et" -q -f)
	a=$(secs "$C" convert kineto "$t/$m.json" -o "$t/$m.et" -q -f)
	[ -s "$t/$m.et" ] || bad "convert $m: $(cat "$t/last.err")"
	within "convert kineto, $N $m" "$a" "$b"
done

# device synchronisations over many streams: edges only to new work
"$gen" syncs 5000 1000 "$t/syncs.json" || bad "mkhostile syncs"
a=$(secs "$C" convert kineto "$t/syncs.json" -o "$t/syncs.et" -f)
e=$(sed -n 's/^synchronisation: \([0-9]*\) host-wait edges.*/\1/p' "$t/last.err")
echo "convert kineto, 5,000 device syncs x 1,000 streams: ${a} s, ${e} host-wait edges"
[ -n "$e" ] && [ "$e" -le 1000 ] || bad "5,000 syncs x 1,000 streams: ${e:-?} host-wait edges (one per stream)"

# rank start/stride: ranges kept as ranges (80 groups of 2^20 ranks made
# a 626 MB ET)
"$gen" ranges 80 "$t/ranges.json" || bad "mkhostile ranges"
a=$(secs "$C" convert pytorch --et "$t/ranges.json" -o "$t/ranges.et" -q -f)
sz=$(wc -c <"$t/ranges.et")
echo "convert pytorch, 80 groups of 2^20 ranks: ${a} s, $sz bytes"
[ "$sz" -lt 100000 ] || bad "80 range groups: a $sz-byte ET"

# communicator groups: sorted, not compared pairwise
A=$D/astra-sim
"$gen" groups 50000 "$t/g1.json" && "$gen" groups 100000 "$t/g2.json" || bad "mkhostile groups"
sim() { "$C" sim --workload "$A/microbenchmarks/all_reduce/4npus_1MB/all_reduce" \
	--network "$A/network/Ring_4npus.yml" --system "$A/system/HGX-H100-validated.json" --comm-group "$1"; }
b=$(secs sim "$t/g1.json")
grep -q cycles "$t/last.out" || bad "sim --comm-group (50,000 groups): $(cat "$t/last.err")"
a=$(secs sim "$t/g2.json")
within "sim --comm-group, 50,000 groups against 100,000" "$a" "$b"

# the replay: resources on one old key; windows split in one pass; the
# critical path's per-segment counts
"$gen" resources 50000 "$t/res.et" && "$gen" resources-benign 50000 "$t/res-b.et" || bad "mkhostile resources"
b=$(secs "$C" sim --replay --workload "$t/res-b.et")
a=$(secs "$C" sim --replay --workload "$t/res.et")
grep -q iteration "$t/last.out" || bad "replay on chosen resources: $(cat "$t/last.err")"
within "sim --replay, 50,000 streams" "$a" "$b"
"$gen" windows 5000 "$t/w1.et" && "$gen" windows 10000 "$t/w2.et" || bad "mkhostile windows"
b=$(secs "$C" sim --replay --workload "$t/w1.et" --between it)
a=$(secs "$C" sim --replay --workload "$t/w2.et" --between it)
grep -q 'iterations between' "$t/last.out" || bad "--between: $(cat "$t/last.err")"
within "sim --replay --between, 5,000 windows against 10,000" "$a" "$b"
"$gen" path 25000 "$t/p1.et" && "$gen" path 50000 "$t/p2.et" || bad "mkhostile path"
b=$(secs "$C" sim --replay --workload "$t/p1.et" --json)
a=$(secs "$C" sim --replay --workload "$t/p2.et" --json)
grep -q critical_path "$t/last.out" || bad "--json: $(cat "$t/last.err")"
within "sim --replay --json, a 25,000-op critical path against 50,000" "$a" "$b"

# synth: MODEL.json is read up to 16 MiB
"$gen" model 20 "$t/model.json" || bad "mkhostile model"
a=$(secs "$C" synth sample "$t/model.json" --npus 2 -o "$t/s")
grep -q 'larger than 16 MiB' "$t/last.err" || bad "a 20 MB model: $(cat "$t/last.err")"
echo "synth sample, a 20 MB model: refused in ${a} s"

[ $fails -eq 0 ] && echo "quadratic: all checks passed"
exit $fails
