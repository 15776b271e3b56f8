# SPDX-License-Identifier: Apache-2.0
# Scaling of stats and visualize --around on a 1M-node synthetic trace,
# next to the floor (reading every node with the public reader) measured
# in the same run. $1 = bench_read, $2 = node count (default 1000000).
set -eu
C="$CHAKRA_EXE"
N="${2:-1000000}"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
"$C" generate synthetic "$N" -o "$D/s.et" >/dev/null
echo "trace: $N nodes, $(wc -c <"$D/s.et") bytes"
"$1" "$D/s.et"
t() { label="$1"; shift; /usr/bin/time -f "$label: %e s, peak %M KiB" "$@" >"$D/out" 2>"$D/time" || { cat "$D/time" >&2; exit 1; }; tail -1 "$D/time"; }
t "stats --deps data" "$C" stats "$D/s.et"
grep -E '^(critical path|depth)' "$D/out"
t "stats --deps both" "$C" stats "$D/s.et" --deps both
t "visualize --around $((N / 2)) --depth 2" "$C" visualize "$D/s.et" --around $((N / 2)) --depth 2 -o "$D/a.dot"
