#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# chakra synth / anonymize command line on small inputs (runs under
# valgrind in CI): options and errors, determinism, group shapes, outputs
# that validate, anonymize keeping the graph, nothing overwritten unasked.
set -u
. "$(dirname "$0")/../cli.sh" && cli_tmp synth-cli
X="$CHAKRA_EXE"

# A hybrid-parallel MLP on 8 NPUs (2x4: model groups of 2 consecutive
# ranks, data groups every 2nd rank), 4 layers.
"$X" generate model --model mlp --parallel hybrid --npus 8 --layers 4 --hidden 1024 --batch 64 \
	-o "$T/w" >/dev/null 2>&1 || bad "generate model"

expect 0 "" "fit help" -- "$X" synth fit --help
expect 0 "" "sample help" -- "$X" synth sample --help
expect 0 "" "compare help" -- "$X" synth compare --help
expect 0 "" "anonymize help" -- "$X" anonymize --help
expect 2 "missing PREFIX" "fit without input" -- "$X" synth fit -o "$T/m.json"
expect 2 "missing -o" "fit without output" -- "$X" synth fit "$T/w"
expect 1 "no workload $T/none.0.et" "fit on nothing" -- "$X" synth fit "$T/none" -o "$T/m.json"
expect 2 "--max-order needs" "bad max order" -- "$X" synth fit "$T/w" -o "$T/m.json" --max-order 9
expect 2 "unknown option" "unknown option" -- "$X" synth fit "$T/w" -o "$T/m.json" --frob

expect 0 "groups from $T/w.comm_groups.json" "fit a prefix (groups found)" -- "$X" synth fit "$T/w" -o "$T/m.json"
grep -q '"group": "block:2"' "$T/m.json" && grep -q '"group": "stride:2"' "$T/m.json" \
	&& ok "group shapes learnt" || bad "group shapes: $(grep -o '"group": "[^"]*"' "$T/m.json" | sort -u | tr '\n' ' ')"
expect 1 "exists" "model not replaced without -f" -- "$X" synth fit "$T/w" -o "$T/m.json"
expect 0 "" "model replaced with -f" -- "$X" synth fit "$T/w" -o "$T/m.json" -f -q

expect 2 "missing --npus" "sample without npus" -- "$X" synth sample "$T/m.json" -o "$T/s"
expect 1 "multiple of 2 (not 7)" "npus must fit the groups" -- "$X" synth sample "$T/m.json" --npus 7 -o "$T/s"
[ ! -e "$T/s.0.et" ] && ok "nothing written on error" || bad "files written on error"
expect 0 "" "sample 8 ranks" -- "$X" synth sample "$T/m.json" --npus 8 --seed 11 -o "$T/s"
expect 0 "" "sample again, same seed" -- "$X" synth sample "$T/m.json" --npus 8 --seed 11 -o "$T/t"
same=1
for r in 0 1 2 3 4 5 6 7; do cmp -s "$T/s.$r.et" "$T/t.$r.et" || same=0; done
cmp -s "$T/s.comm_groups.json" "$T/t.comm_groups.json" || same=0
[ $same = 1 ] && ok "same seed, same bytes" || bad "same seed gave different files"
expect 0 "" "sample, other seed" -- "$X" synth sample "$T/m.json" --npus 8 --seed 12 -o "$T/u"
cmp -s "$T/s.0.et" "$T/u.0.et" && bad "another seed gave the same file" || ok "another seed, other bytes"
expect 1 "exists" "sample does not replace" -- "$X" synth sample "$T/m.json" --npus 8 --seed 11 -o "$T/s"
expect 0 "" "sample 16 ranks, 500 nodes, gzip" -- "$X" synth sample "$T/m.json" --npus 16 --nodes 500 --gzip -o "$T/big"
[ -e "$T/big.15.et.gz" ] && ok "16 gzip files" || bad "16 gzip files"
expect 0 "" "validate 16 ranks" -- "$X" validate "$T/big.0.et.gz" "$T/big.7.et.gz" "$T/big.15.et.gz"
grep -q '"8": \[' "$T/big.comm_groups.json" && ok "16-rank group file has 8 block groups + strided" \
	|| bad "group file: $(tr -d '\n ' <"$T/big.comm_groups.json" | head -c 200)"
expect 0 "" "validate 8 ranks" -- "$X" validate "$T/s.0.et" "$T/s.3.et" "$T/s.7.et"

printf '{"format": "chakra-synth-model", "version": 1, "ranks": 1}' >"$T/bad.json"
expect 1 "bad.json: nodes_per_rank: missing" "bad model names the key" -- "$X" synth sample "$T/bad.json" --npus 2 -o "$T/x"
printf '{"format": ' >"$T/trunc.json"
expect 1 "trunc.json: not JSON" "truncated model" -- "$X" synth sample "$T/trunc.json" --npus 2 -o "$T/x"

expect 0 "" "compare" -- "$X" synth compare "$T/w" "$T/s"
grep -q '^size/all ' "$T/out" && grep -q '^duration/all ' "$T/out" && ok "compare table" || bad "compare table: $(head -3 "$T/out")"
expect 0 "" "compare --json" -- "$X" synth compare "$T/w" "$T/s" --json --quantiles 4
grep -q '"quantiles_synth": \[' "$T/out" && ok "compare json" || bad "compare json"
expect 2 "go together" "network without system" -- "$X" synth compare "$T/w" "$T/s" --network x.yml
expect 2 "two workloads" "compare one argument" -- "$X" synth compare "$T/w"

expect 0 "" "anonymize" -- "$X" anonymize "$T/w.0.et" -o "$T/a.et"
expect 0 "" "anonymized trace validates" -- "$X" validate "$T/a.et"
expect 1 "exist" "anonymize does not replace" -- "$X" anonymize "$T/w.0.et" -o "$T/a.et"
expect 1 "" "anonymize onto its input" -- "$X" anonymize "$T/w.0.et" -o "$T/w.0.et"
expect 2 "--perturb needs" "perturbation bound" -- "$X" anonymize "$T/w.0.et" -o "$T/p.et" --perturb 0.9
expect 0 "" "anonymize with perturbation" -- "$X" anonymize "$T/w.0.et" -o "$T/p.et" --perturb 0.2 --seed 3
"$X" jsonize "$T/a.et" >"$T/a.json" 2>/dev/null
if grep -q '"name":"fc' "$T/a.json"; then bad "a layer name survived"; else ok "no layer name"; fi
grep -q '"name":"gpu.gemm"' "$T/a.json" && ok "names are op classes" || bad "names are op classes"
exit $fails
