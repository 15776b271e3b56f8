# SPDX-License-Identifier: Apache-2.0
# chakra visualize on the real trace: a window rendered to PNG by Graphviz,
# DOT/GraphML contents pinned (checked against the raw protobuf by
# check_analyze.py visualize), escaping of hostile names, error cases.
# $1 = the mktrace helper.
. "$(dirname "$0")/../need.sh" && need_data data/chakra/chakra.0.et.gz
. "$(dirname "$0")/lib.sh"
MK="$1"

# PNG through Graphviz: signature and a real picture, not an empty canvas.
expect_rc 0 "$C" visualize "$T" --range 3248:3262 --durations --sizes -o "$D/w.png"
sig=$(head -c 8 "$D/w.png" | od -An -tx1 | tr -d ' \n')
[ "$sig" = 89504e470d0a1a0a ] || fail "PNG signature: $sig"
size=$(wc -c <"$D/w.png")
[ "$size" -gt 20000 ] || fail "PNG only $size bytes"
expect_rc 0 "$C" visualize "$T" --range 3248:3262 -o "$D/w.svg"
grep -q '<svg' "$D/w.svg" || fail "SVG has no <svg"
expect_rc 0 "$C" visualize "$T" --range 3248:3262 -o "$D/w.pdf"
[ "$(head -c 5 "$D/w.pdf")" = "%PDF-" ] || fail "PDF signature"

# DOT of the same window: 8 nodes (ids 3249, 3250, 3257, 3259-3261 are not
# in the file), 10 edges of which 2 control edges drawn dashed.
expect_rc 0 "$C" visualize "$T" --range 3248:3262 -o "$D/w.dot"
[ "$(grep -c '^  n[0-9]* \[' "$D/w.dot")" = 8 ] || fail "DOT node count"
[ "$(grep -c ' -> ' "$D/w.dot")" = 10 ] || fail "DOT edge count"
[ "$(grep -c ' -> .*style=dashed' "$D/w.dot")" = 2 ] || fail "DOT dashed ctrl edges"
grep -q '^  n3255 -> n3256 \[style=dashed\];$' "$D/w.dot" || fail "ctrl edge 3255->3256"
grep -q '^  n3254 -> n3256;$' "$D/w.dot" || fail "data edge 3254->3256"
grep -qF '35 edges to nodes outside the cut not drawn' "$D/w.dot" || fail "caption"
# The same from stdin to stdout.
"$C" visualize - --range 3248:3262 -o - <"$T" >"$D/w2.dot" 2>"$D/err" || fail "stdin/stdout"
cmp -s "$D/w.dot" "$D/w2.dot" || { sed -i 's/chakra.0.et.gz/<stdin>/' "$D/w.dot"; cmp -s "$D/w.dot" "$D/w2.dot" || fail "stdin DOT differs"; }
# --around: both directions, both kinds.
expect_rc 0 "$C" visualize "$T" --around 3256 --depth 1 -o "$D/a.dot"
[ "$(grep -c '^  n[0-9]* \[' "$D/a.dot")" = 7 ] || fail "around node count"
[ "$(grep -c ' -> ' "$D/a.dot")" = 13 ] || fail "around edge count"
# GraphML: same graph, edges typed.
expect_rc 0 "$C" visualize "$T" --around 3256 --depth 1 --durations -o "$D/a.graphml"
[ "$(grep -c '<node ' "$D/a.graphml")" = 7 ] || fail "GraphML nodes"
[ "$(grep -c '<edge ' "$D/a.graphml")" = 13 ] || fail "GraphML edges"
[ "$(grep -c '<data key="kind">ctrl' "$D/a.graphml")" = 1 ] || fail "GraphML ctrl edge"
grep -q '<data key="duration">5572</data>' "$D/a.graphml" || fail "GraphML duration"

# Hostile names: quotes, <, >, &, backslash, newline, invalid UTF-8.
"$MK" names "$D/names.et" || fail "mktrace names"
expect_rc 0 "$C" visualize "$D/names.et" -o "$D/n.dot"
grep -qF 'label="say \"hi\" <b> & \\ end\nCOMP_NODE #1"' "$D/n.dot" || fail "DOT escaping"
grep -qF 'label="line break ? tail\nCOMM_COLL_NODE #2"' "$D/n.dot" || fail "DOT control/bad UTF-8"
expect_rc 0 "$C" visualize "$D/names.et" -o "$D/n.graphml"
grep -qF 'say &quot;hi&quot; &lt;b&gt; &amp; \ end' "$D/n.graphml" || fail "GraphML escaping"
grep -qF '&apos;single&apos;' "$D/n.graphml" || fail "GraphML apostrophe"
expect_rc 0 "$C" visualize "$D/names.et" -o "$D/n.svg"   # Graphviz accepts our DOT
grep -qF '&quot;hi&quot;' "$D/n.svg" || fail "SVG label"

# A reused id is drawn once; an empty trace gives an empty graph.
"$MK" dup "$D/dup.et" || fail "mktrace dup"
expect_rc 0 "$C" visualize "$D/dup.et" -o "$D/dup.graphml"
[ "$(grep -c '<node ' "$D/dup.graphml")" = 2 ] || fail "dup drawn once"
expect_err "1 node(s) reuse an earlier id; drawn once"
printf '\007\012\0050.0.4' >"$D/empty.et"
expect_rc 0 "$C" visualize "$D/empty.et" -o "$D/empty.dot"
expect_err "the cut holds no nodes"

# Errors.
expect_rc 1 env PATH=/nonexistent "$C" visualize "$T" --range 1:5 -o "$D/x.png"
expect_err "install graphviz"
[ ! -e "$D/x.png" ] || fail "x.png written without graphviz"
expect_rc 0 env PATH=/nonexistent "$C" visualize "$T" --range 1:5 -o "$D/x.dot"
cp "$T" "$D/in.et.gz"
expect_rc 1 "$C" visualize "$D/in.et.gz" --format dot -o "$D/in.et.gz"
expect_err "refusing to overwrite"
cmp -s "$T" "$D/in.et.gz" || fail "input was overwritten"
expect_rc 2 "$C" visualize "$T" -o "$D/x.txt"
expect_err "cannot tell the format"
expect_rc 2 "$C" visualize "$T" --range 9:3 -o "$D/x.dot"
expect_rc 2 "$C" visualize "$T" --range 1:3 --around 2 -o "$D/x.dot"
expect_rc 1 "$C" visualize "$T" --around 3 -o "$D/x.dot" -f
expect_err "--around 3: no node with that id"
expect_rc 1 "$C" visualize "$T" -o "$D/all.png"
expect_err "more than 300 nodes"
[ ! -e "$D/all.png" ] || fail "all.png written past --max-nodes"
gzip -dc "$T" | head -c 100000 >"$D/trunc.et"
expect_rc 1 "$C" visualize "$D/trunc.et" -o "$D/t.dot"
expect_err "trunc.et"
[ ! -e "$D/t.dot" ] || fail "partial DOT left behind"
expect_rc 0 "$C" visualize --help
finish
