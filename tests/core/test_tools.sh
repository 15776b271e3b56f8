#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# chakra jsonize / pack / validate on the real traces in tests/data and
# on crafted ones: byte-identical round trips, the workload_graph form,
# pinned validate counts and exact problem lines, pack's error messages.
set -u
. "$(dirname "$0")/../need.sh" && need_data data/chakra/chakra.0.et.gz data/astra-sim/microbenchmarks data/chakra/small_chakra.0.json
C=${CHAKRA_EXE:?}
D=${CHAKRA_SHARED:?}/data
T=$(mktemp -d "${TMPDIR:-/tmp}/core-tools.XXXXXX") || exit 1
# (no `trap ... EXIT`: dash leaks memory for it, which CI's valgrind step counts)
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# expect_line FILE LINE: FILE has exactly this line
expect_line() { grep -qxF -- "$2" "$1" || { fail "$1 lacks line: $2"; sed 's/^/  | /' "$1" >&2; }; }

# ---- 1. jsonize then pack gives the identical bytes, every real .et ----
n=0
for f in "$D"/chakra/chakra.0.et.gz "$D"/astra-sim/microbenchmarks/*/*/*.et; do
	case $f in *.gz) gzip -dc "$f" > "$T/orig.et" ;; *) cp "$f" "$T/orig.et" ;; esac
	rm -f "$T/back.et"
	"$C" jsonize "$f" -o "$T/j.json" -f || fail "jsonize $f"
	"$C" pack "$T/j.json" -o "$T/back.et" || fail "pack of $f's JSON"
	cmp -s "$T/orig.et" "$T/back.et" || fail "$f: jsonize+pack bytes differ"
	# protobuf's JSON mapping (Chakra's chakra_jsonizer) both ways
	"$C" jsonize --protobuf-json "$f" -o "$T/pb.json" -f || fail "jsonize --protobuf-json $f"
	"$C" pack "$T/pb.json" -o "$T/back.et" -f || fail "pack of $f's protobuf JSON"
	cmp -s "$T/orig.et" "$T/back.et" || fail "$f: jsonize --protobuf-json + pack bytes differ"
	n=$((n + 1))
done
[ "$n" -eq 113 ] || fail "expected 113 real traces, found $n"

# streamed through pipes ('-' both ways) and gzip output
gzip -dc "$D/chakra/chakra.0.et.gz" > "$T/c.et"
"$C" jsonize - < "$T/c.et" | "$C" pack - -o "$T/p.et.gz" --gzip || fail "pipe round trip"
gzip -dc "$T/p.et.gz" | cmp -s - "$T/c.et" || fail "gzip pack differs"
# node count and per-type counts of chakra.0.et from its JSON
"$C" jsonize "$T/c.et" -o "$T/c.json"
[ "$(grep -c '"id":' "$T/c.json")" -eq 3664 ] || fail "chakra.0.et: expected 3664 node lines"

# the JSON of real microbenchmark files, field by field
for c in all_reduce:0 all_gather:2 reduce_scatter:7 all_to_all:6; do
	name=${c%:*} type=${c#*:}
	"$C" jsonize "$D/astra-sim/microbenchmarks/$name/8npus_1MB/$name.3.et" -o "$T/m.json" -f
	expect_line "$T/m.json" '{"id":3,"name":"'"${name}"'_8npus_1MB","type":"COMM_COLL_NODE","ctrl_deps":[],"data_deps":[],"start_time_micros":0,"duration_micros":0,"attr":[{"name":"is_cpu_op","kind":"bool","value":false},{"name":"comm_type","kind":"int64","value":'"$type"'},{"name":"comm_size","kind":"int64","value":1048576}]}'
done

# ---- 2. workload_graph JSON -> trace -> JSON ----
"$C" pack "$D/chakra/small_chakra.0.json" -o "$T/s.et" || fail "pack small_chakra.0.json"
"$C" jsonize "$T/s.et" -o "$T/s.json" || fail "jsonize s.et"
expect_line "$T/s.json" '{"metadata":{"version":"0.0.4","attr":[{"name":"workload_name","kind":"string","value":"workload_name"},{"name":"ngpus","kind":"int64","value":8},{"name":"soc","kind":"string","value":"soc_name"}]},"nodes":['
expect_line "$T/s.json" '{"id":216,"name":"aten::flatten_dense_tensors(0)","type":"COMP_NODE","ctrl_deps":[3],"data_deps":[],"start_time_micros":0,"duration_micros":318,"attr":[{"name":"is_cpu_op","kind":"bool","value":true}]}'
expect_line "$T/s.json" ',{"id":435,"name":"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)","type":"COMM_COLL_NODE","ctrl_deps":[434],"data_deps":[432,216,217],"start_time_micros":0,"duration_micros":28,"attr":[{"name":"is_cpu_op","kind":"bool","value":false}]}'
[ "$(grep -c '"id":' "$T/s.json")" -eq 7 ] || fail "small_chakra: expected 7 nodes"

# ---- 2b. protobuf's JSON mapping as Chakra's chakra_jsonizer writes it ----
# (tests/data/chakra/chakra.0.first20.pbjson*: google.protobuf.json_format
# on the metadata and first 20 nodes of chakra.0.et.gz; SOURCES.md)
"$C" jsonize "$D/chakra/chakra.0.et.gz" | head -21 > "$T/first20.ref"
for f in "$D/chakra/chakra.0.first20.pbjson" "$D/chakra/chakra.0.first20.pbjson.array"; do
	"$C" pack "$f" -o "$T/pb20.et" -f || fail "pack $f"
	"$C" jsonize "$T/pb20.et" | head -21 > "$T/first20.out"
	cmp -s "$T/first20.ref" "$T/first20.out" || fail "$f: not the first 20 nodes of chakra.0.et.gz"
	[ "$(grep -c '"id":' "$T/first20.out")" -eq 20 ] || fail "$f: expected 20 nodes"
done
# the first node, field by field, as MessageToJson writes it (the
# reference's file is indented; ours one message per line)
"$C" jsonize --protobuf-json "$D/astra-sim/microbenchmarks/all_to_all/8npus_1MB/all_to_all.3.et" -o "$T/m.pb" -f
expect_line "$T/m.pb" '{"version":"0.0.4"}'
expect_line "$T/m.pb" '{"id":"3","name":"all_to_all_8npus_1MB","type":"COMM_COLL_NODE","attr":[{"name":"is_cpu_op","boolVal":false},{"name":"comm_type","int64Val":"6"},{"name":"comm_size","int64Val":"1048576"}]}'
"$C" jsonize --protobuf-json --pretty "$D/astra-sim/microbenchmarks/all_to_all/8npus_1MB/all_to_all.3.et" -o "$T/m.pbp" -f
"$C" pack "$T/m.pbp" -o "$T/m.et" -f && cmp -s "$T/m.et" "$D/astra-sim/microbenchmarks/all_to_all/8npus_1MB/all_to_all.3.et" ||
	fail "pretty protobuf JSON round trip"
# names that are not UTF-8: protobuf's mapping cannot hold them (jsonize's
# own form keeps the bytes)
printf '{"metadata":{"version":"0.0.4"},"nodes":[{"id":5,"name":"ok"},{"id":6,"name":"bad\377"}]}' > "$T/u.json"
"$C" pack "$T/u.json" -o "$T/u.et" -f || fail "pack u.json"
"$C" jsonize --protobuf-json "$T/u.et" -o "$T/u.pb" 2> "$T/err" && fail "protobuf JSON of a non-UTF-8 name"
expect_line "$T/err" "chakra: $T/u.et: byte 15: node 6: name is not valid UTF-8; protobuf's JSON mapping cannot hold it (plain 'chakra jsonize' keeps the bytes)"
[ ! -e "$T/u.pb" ] || fail "a failed jsonize left its output"
"$C" jsonize "$T/u.et" -o "$T/u2.json" -f && cmp -s "$T/u.json" "$T/u2.json" ||
	{ "$C" pack "$T/u2.json" -o "$T/u2.et" -f && cmp -s "$T/u.et" "$T/u2.et"; } || fail "non-UTF-8 name round trip"

# ---- 3. every attribute kind at its extremes survives both directions ----
# (NaNs other than the plain quiet NaN keep their bits as "nan:0xBITS")
cat > "$T/k.json" <<'EOF'
{"metadata":{"version":"v","attr":[{"name":"m","doc_string":"doc\u0000x","kind":"bytes","value":"00ff10"}]},"nodes":[
{"id":18446744073709551615,"name":"x\u0001\"\\y","type":9,"ctrl_deps":[0,18446744073709551615],"data_deps":[],"start_time_micros":18446744073709551615,"duration_micros":1,"inputs":{"values":"","shapes":"","types":""},"attr":[{"name":"i32","kind":"int32","value":-2147483648},{"name":"i32b","kind":"int32","value":2147483647},{"name":"i64","kind":"int64","value":-9223372036854775808},{"name":"u32","kind":"uint32","value":4294967295},{"name":"u64","kind":"uint64","value":18446744073709551615},{"name":"s32","kind":"sint32","value":-2147483648},{"name":"s64","kind":"sint64","value":-9223372036854775808},{"name":"f32","kind":"fixed32","value":4294967295},{"name":"f64","kind":"fixed64","value":18446744073709551615},{"name":"sf32","kind":"sfixed32","value":-2147483648},{"name":"sf64","kind":"sfixed64","value":-9223372036854775808},{"name":"b","kind":"bool","value":true},{"name":"d","kind":"double","value":0.10000000000000001},{"name":"dn","kind":"double","value":"nan"},{"name":"di","kind":"double","value":"-inf"},{"name":"dm","kind":"double","value":-0},{"name":"dt","kind":"double","value":4.9406564584124654e-324},{"name":"f","kind":"float","value":0.100000001},{"name":"fi","kind":"float","value":"inf"},{"name":"s","doc_string":"d","kind":"string","value":"héllo"},{"name":"y","kind":"bytes","value":""},{"name":"n","kind":"none"},{"name":"dl","kind":"double_list","value":[1.5,"nan",-1e+308]},{"name":"fl","kind":"float_list","value":[3.40282347e+38,1.40129846e-45]},{"name":"i32l","kind":"int32_list","value":[-1,0,2147483647]},{"name":"i64l","kind":"int64_list","value":[-9223372036854775808,9223372036854775807]},{"name":"u32l","kind":"uint32_list","value":[4294967295]},{"name":"u64l","kind":"uint64_list","value":[18446744073709551615,0]},{"name":"s32l","kind":"sint32_list","value":[-2147483648,5]},{"name":"s64l","kind":"sint64_list","value":[-9223372036854775808]},{"name":"f32l","kind":"fixed32_list","value":[1,4294967295]},{"name":"f64l","kind":"fixed64_list","value":[18446744073709551615]},{"name":"sf32l","kind":"sfixed32_list","value":[-2147483648]},{"name":"sf64l","kind":"sfixed64_list","value":[-1]},{"name":"bl","kind":"bool_list","value":[true,false,true]},{"name":"sl","kind":"string_list","value":["a","","c"]},{"name":"yl","kind":"bytes_list","value":["00","ff",""]},{"name":"el","kind":"int64_list","value":[]},{"name":"np","kind":"double","value":"nan:0xfff8000000000001"},{"name":"fp","kind":"float_list","value":["nan:0x7fc3ffff","nan","nan:0xffc00000"]}]}
]}
EOF
"$C" pack "$T/k.json" -o "$T/k.et" || fail "pack all kinds"
"$C" jsonize "$T/k.et" -o "$T/k2.json" || fail "jsonize all kinds"
# the JSON is already in canonical form, so it must come back unchanged
cmp -s "$T/k.json" "$T/k2.json" || { fail "all-kinds JSON changed"; diff "$T/k.json" "$T/k2.json" >&2; }
# ... and through protobuf's JSON mapping: the same bytes, except NaN
# payloads, which the mapping cannot hold (all become "NaN", with a note)
"$C" jsonize --protobuf-json "$T/k.et" -o "$T/k.pb" 2> "$T/err" || fail "jsonize --protobuf-json all kinds"
expect_line "$T/err" "chakra: $T/k.et: note: 3 NaN value(s) with a payload or sign written as \"NaN\" (protobuf's JSON mapping has no other NaN)"
sed -i 's/,{"name":"np","kind":"double","value":"nan:0xfff8000000000001"},{"name":"fp","kind":"float_list","value":\["nan:0x7fc3ffff","nan","nan:0xffc00000"\]}//' "$T/k.json"
"$C" pack "$T/k.json" -o "$T/k4.et" -f && "$C" jsonize --protobuf-json "$T/k4.et" -o "$T/k4.pb" &&
	"$C" pack "$T/k4.pb" -o "$T/k5.et" && cmp -s "$T/k4.et" "$T/k5.et" || fail "all kinds: protobuf JSON round trip"
# key order inside objects does not matter to pack
printf '%s' '{"nodes":[{"attr":[{"value":7,"kind":"int32","name":"x"}],"type":"COMP_NODE","id":5}],"metadata":{"attr":[],"version":"0.0.4"}}' > "$T/o.json"
"$C" pack "$T/o.json" -o "$T/o.et" || fail "pack with nodes before metadata"
"$C" jsonize "$T/o.et" | grep -qxF '{"id":5,"name":"","type":"COMP_NODE","ctrl_deps":[],"data_deps":[],"start_time_micros":0,"duration_micros":0,"attr":[{"name":"x","kind":"int32","value":7}]}' ||
	fail "nodes-before-metadata output"

# ---- 4. pack errors: file, line, byte, what; nothing written ----
pack_err() { # JSON EXPECTED-STDERR
	printf '%s' "$1" > "$T/e.json"
	rm -f "$T/e.et"
	"$C" pack "$T/e.json" -o "$T/e.et" 2> "$T/err"
	rc=$?
	[ $rc -eq 1 ] || fail "pack '$1': exit $rc, expected 1"
	[ ! -e "$T/e.et" ] || fail "pack '$1' left an output file"
	! grep -qE 'Sanitizer|runtime error' "$T/err" || fail "pack '$1': sanitizer report"
	expect_line "$T/err" "$2"
}
M='{"metadata":{"version":"0.0.4","attr":[]},"nodes":['
pack_err "$M"'{"id":1,"attr":[{"name":"x","kind":"int33","value":1}]}]}' \
	"chakra: $T/e.json:1: byte 93: node 1: unknown attribute kind \"int33\" (expected int64, string_list, ...)"
pack_err "$M
"'{"id":1,"attr":[{"name":"x","kind":"int32","value":2147483648}]}]}' \
	"chakra: $T/e.json:2: byte 114: node 1: attribute 'x': value 2147483648 is out of range for kind int32"
pack_err "$M"'{"id":1,"attr":[{"name":"x","kind":"uint64","value":18446744073709551616}]}]}' \
	"chakra: $T/e.json:1: byte 124: node 1: attribute 'x': value 18446744073709551616 is out of range for kind uint64"
pack_err "$M"'{"id":1,"attr":[{"name":"x","kind":"uint32","value":-1}]}]}' \
	"chakra: $T/e.json:1: byte 106: node 1: attribute 'x': value -1 is out of range for kind uint32"
pack_err "$M"'{"id":1,"attr":[{"name":"x","kind":"int64","value":1.5}]}]}' \
	"chakra: $T/e.json:1: byte 106: node 1: attribute 'x': value 1.5 is out of range for kind int64"
pack_err "$M"'{"id":"1"}]}' \
	"chakra: $T/e.json:1: byte 60: \"id\": expected a non-negative integer, got a string"
pack_err "$M"'{"id":1,"attr":[{"name":"x","kind":"bool","value":1}]}]}' \
	"chakra: $T/e.json:1: byte 103: node 1: attribute 'x' (bool): expected true/false, got a number"
pack_err "$M"'{"id":1,"attr":[{"name":"x","kind":"string_list","value":"a"}]}]}' \
	"chakra: $T/e.json:1: byte 112: node 1: attribute 'x': kind string_list needs an array value"
pack_err "$M"'{"id":1,"attr":[{"name":"x","kind":"bytes","value":"abc"}]}]}' \
	"chakra: $T/e.json:1: byte 108: node 1: attribute 'x': bytes value must be an even number of hex digits"
pack_err "$M"'{"id":1,"attr":[{"name":"x","kind":"double","value":1e999}]}]}' \
	"chakra: $T/e.json:1: byte 109: node 1: attribute 'x' (double): value 1e999 is out of range"
pack_err "$M"'{"id":1,"attr":[{"name":"x","kind":"float","value":"nan:0x7ff8000000000000"}]}]}' \
	"chakra: $T/e.json:1: byte 127: node 1: attribute 'x' (float): string \"nan:0x7ff8000000000000\" is not a number (only \"nan\", \"nan:0xBITS\", \"inf\", \"-inf\")"
pack_err "$M"'{"id":1,"type":"FOO"}]}' "chakra: $T/e.json:1: byte 71: node 1: unknown node type \"FOO\""
# a negative type would be written as protobuf does (sign-extended), which
# the reader rejects: pack refuses it (found by fuzz_pack)
pack_err '{"workload_graph":[{"Id":1,"NodeType":-4}]}' "chakra: $T/e.json:1: byte 40: node 1: \"NodeType\": node type -4: negative types are not supported (the reader cannot read them back)"
pack_err "$M"'{"id":1,"foo":2}]}' "chakra: $T/e.json:1: byte 66: node 1: unknown key \"foo\" in node"
pack_err "$M"'{"id":1,' "chakra: $T/e.json:1: byte 59: node 1: invalid JSON: parse error: premature EOF"
pack_err "$M"'{"id":1}]}xx' "chakra: $T/e.json:1: byte 62: invalid JSON: parse error: trailing garbage"
pack_err '' "chakra: $T/e.json:1: byte 0: invalid JSON: parse error: premature EOF"
pack_err '[]' "chakra: $T/e.json:1: byte 2: empty array: expected the GlobalMetadata object, then Nodes"
pack_err '7' "chakra: $T/e.json:1: byte 1: expected a JSON object at the top level, got a number"
pack_err '{"nodes":[{"id":1}]}' "chakra: $T/e.json:1: byte 20: no \"metadata\" object"
pack_err '{"workload_graph":[{"Id":1,"x":[1,"a"]}]}' "chakra: $T/e.json:1: byte 38: node 1: key 'x': array mixes value types"
# never overwrite the input
cp "$T/k.json" "$T/in.json"
"$C" pack "$T/in.json" -o "$T/in.json" 2> "$T/err" && fail "pack overwrote its input"
cmp -s "$T/k.json" "$T/in.json" || fail "input changed"

# ---- 5. validate: real trace counts, --strict, crafted problems ----
"$C" validate "$D/chakra/chakra.0.et.gz" > "$T/v.out"
[ $? -eq 0 ] || fail "validate chakra.0.et.gz: expected exit 0"
F=$D/chakra/chakra.0.et.gz
expect_line "$T/v.out" "$F: warning: 1277 control dependencies on 210 ids that are not in the file (first ones shown; --max-warnings 0 shows all)"
expect_line "$T/v.out" "$F: warning: 383 nodes list themselves in ctrl_deps (first ones shown; --max-warnings 0 shows all)"
expect_line "$T/v.out" "$F: 3664 nodes, 0 error(s), 1660 warning(s): OK"
expect_line "$T/v.out" "$F:95: node 216: warning: control dependency on id 3, which is not in the file"
[ "$(grep -c 'warning: control dependency on id' "$T/v.out")" -eq 10 ] || fail "expected 10 shown ctrl warnings"
"$C" validate --max-warnings 0 "$F" > "$T/v.out"
[ "$(grep -c 'warning: control dependency on id' "$T/v.out")" -eq 1277 ] || fail "expected 1277 ctrl warning lines"
[ "$(grep -c 'warning: lists itself in ctrl_deps' "$T/v.out")" -eq 383 ] || fail "expected 383 self ctrl lines"
"$C" validate --strict "$F" > "$T/v.out"
[ $? -eq 1 ] || fail "validate --strict chakra.0.et.gz: expected exit 1"
expect_line "$T/v.out" "$F: 3664 nodes, 1660 error(s), 0 warning(s)"
# --max-errors (default 100): the first 100 error lines, then a count
[ "$(grep -c ': control dependency on id' "$T/v.out")" -eq 100 ] || fail "strict: expected 100 error lines"
expect_line "$T/v.out" "$F: 1560 more error(s) not shown (--max-errors 100; 0 shows all)"
"$C" validate --strict --max-errors 0 "$F" > "$T/v.out"
expect_line "$T/v.out" "$F: 3664 nodes, 1660 error(s), 0 warning(s)"
[ "$(grep -c ': control dependency on id' "$T/v.out")" -eq 1277 ] || fail "strict: expected 1277 error lines"
"$C" validate --deep "$D"/astra-sim/microbenchmarks/all_to_all/16npus_1MB/*.et > "$T/v.out" ||
	fail "validate --deep microbenchmarks"
[ "$(grep -c ': OK$' "$T/v.out")" -eq 16 ] || fail "expected 16 OK files"

cat > "$T/g.json" <<'EOF'
{"metadata":{"version":"0.0.4","attr":[]},"nodes":[
{"id":1,"name":"a","type":"COMP_NODE","data_deps":[3]},
{"id":2,"name":"b","type":"COMP_NODE","data_deps":[1]},
{"id":3,"name":"c","type":"COMP_NODE","data_deps":[2]},
{"id":4,"name":"d","type":"COMP_NODE","data_deps":[4, 99]},
{"id":2,"name":"dup","type":"COMP_NODE","ctrl_deps":[5,77]},
{"id":5,"name":"e","type":"COMM_COLL_NODE","ctrl_deps":[5]}
]}
EOF
"$C" pack "$T/g.json" -o "$T/g.et" || fail "pack crafted graph"
"$C" validate "$T/g.et" > "$T/v.out"
[ $? -eq 1 ] || fail "crafted graph: expected exit 1"
cat > "$T/v.exp" <<EOF
$T/g.et:53: node 2: duplicate id (first used by the node at byte 19)
$T/g.et:41: node 4: lists itself in data_deps (a node cannot wait for itself)
$T/g.et:41: node 4: data dependency on id 99, which is not in the file
$T/g.et:53: node 2: warning: control dependency on id 77, which is not in the file
$T/g.et:67: node 5: warning: lists itself in ctrl_deps
$T/g.et:8: node 1: data dependency cycle of 3 nodes (each waits for the next): 1 -> 3 -> 2 -> 1
$T/g.et: warning: 1 control dependencies on 1 ids that are not in the file
$T/g.et: warning: 1 nodes list themselves in ctrl_deps
$T/g.et: 6 nodes, 4 error(s), 2 warning(s)
EOF
cmp -s "$T/v.exp" "$T/v.out" || { fail "crafted graph report"; diff "$T/v.exp" "$T/v.out" >&2; }

# a 2-node cycle inside a larger strongly connected group, and a clean chain
printf '%s' '{"metadata":{"version":"0.0.4"},"nodes":[{"id":10,"data_deps":[11]},{"id":11,"data_deps":[10,12]},{"id":12,"data_deps":[10]},{"id":13,"data_deps":[12]}]}' > "$T/h.json"
"$C" pack "$T/h.json" -o "$T/h.et" && "$C" validate "$T/h.et" > "$T/v.out"
expect_line "$T/v.out" "$T/h.et:8: node 10: data dependency cycle of 2 nodes (each waits for the next): 10 -> 11 -> 10"
expect_line "$T/v.out" "$T/h.et:8: node 10: note: the cycle lies in a group of 3 mutually dependent nodes"
expect_line "$T/v.out" "$T/h.et: 4 nodes, 1 error(s), 0 warning(s)"
printf '%s' '{"metadata":{"version":"0.0.4"},"nodes":[{"id":1},{"id":2,"data_deps":[1]},{"id":3,"data_deps":[2,1]}]}' > "$T/ok.json"
"$C" pack "$T/ok.json" -o "$T/ok.et" && "$C" validate "$T/ok.et" > "$T/v.out" || fail "clean chain: expected exit 0"
expect_line "$T/v.out" "$T/ok.et: 3 nodes, 0 error(s), 0 warning(s): OK"

# --deep: a node with an unknown field (valid protobuf the reader skips) is
# flagged, because any re-write (jsonize+pack included) would drop it
printf '\003\012\001\166\004\010\001\170\005' > "$T/nc.et"
"$C" validate "$T/nc.et" > "$T/v.out" || fail "non-canonical: plain validate should pass"
expect_line "$T/v.out" "$T/nc.et: 1 nodes, 0 error(s), 0 warning(s): OK"
"$C" validate --deep "$T/nc.et" > "$T/v.out" || fail "non-canonical: --deep should only warn"
expect_line "$T/v.out" "$T/nc.et:4: node 1: warning: encoding is not canonical (4 bytes, 2 when re-encoded: unknown fields, repeated or over-long values); re-writing the trace will change these bytes"
expect_line "$T/v.out" "$T/nc.et: warning: 1 nodes are not canonically encoded"
"$C" validate --deep - < "$T/nc.et" > "$T/v.out" || fail "validate --deep stdin"
expect_line "$T/v.out" "<stdin>: note: the --deep encoding check reads the input twice; skipped for stdin, pipes and devices"
expect_line "$T/v.out" "<stdin>: 1 nodes, 0 error(s), 0 warning(s): OK"
"$C" validate --deep "$F" > "$T/v.out"
expect_line "$T/v.out" "$F: 3664 nodes, 0 error(s), 1660 warning(s): OK"

# ---- 6. usage ----
for sub in jsonize pack validate; do
	"$C" $sub --help > /dev/null || fail "$sub --help"
	"$C" $sub --bogus 2> /dev/null
	[ $? -eq 2 ] || fail "$sub --bogus: expected exit 2"
done
"$C" pack "$T/k.json" 2> /dev/null
[ $? -eq 2 ] || fail "pack without -o: expected exit 2"

rm -rf "$T"
[ $fails -eq 0 ] && echo "all core tool checks passed"
exit $fails
