#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `chakra jsonize --protobuf-json` against protobuf's own JSON mapping
# (google.protobuf.json_format from Debian's python3-protobuf, message
# classes from proto/et_def.proto through protoc): every message must parse
# back to the trace's exact bytes and equal what MessageToJson makes of it.
# On chakra.0.et.gz, a synthetic DAG and a trace with every attribute kind
# at its extremes (NaNs without payload: the mapping has one NaN). Skips
# (77) without python3-protobuf or protoc.
set -u
C=${CHAKRA_EXE:?}
D=${CHAKRA_SHARED:?}/data
S=${CHAKRA_SOURCE:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/pbjson.XXXXXX") || exit 1
py() { /usr/bin/python3 "$S/tests/core/pbjson.py" "$@"; }
[ -x /usr/bin/python3 ] && command -v protoc >/dev/null || { rm -rf "$T"; exit 77; }
/usr/bin/python3 -c 'import google.protobuf.json_format' 2>/dev/null || { rm -rf "$T"; exit 77; }
cat > "$T/k.json" <<'EOT'
{"metadata":{"version":"v","attr":[{"name":"m","doc_string":"doc","kind":"bytes","value":"00ff10"}]},"nodes":[
{"id":18446744073709551615,"name":"x\u0001\"\\y é","type":9,"ctrl_deps":[0,18446744073709551615],"data_deps":[],"start_time_micros":18446744073709551615,"duration_micros":1,"inputs":{"values":"","shapes":"","types":""},"outputs":{"values":"v","shapes":"","types":"t"},"attr":[{"name":"i32","kind":"int32","value":-2147483648},{"name":"i64","kind":"int64","value":-9223372036854775808},{"name":"u32","kind":"uint32","value":4294967295},{"name":"u64","kind":"uint64","value":18446744073709551615},{"name":"s32","kind":"sint32","value":-2147483648},{"name":"s64","kind":"sint64","value":-9223372036854775808},{"name":"f32","kind":"fixed32","value":4294967295},{"name":"f64","kind":"fixed64","value":18446744073709551615},{"name":"sf32","kind":"sfixed32","value":-2147483648},{"name":"sf64","kind":"sfixed64","value":-9223372036854775808},{"name":"b","kind":"bool","value":true},{"name":"z","kind":"int64","value":0},{"name":"d","kind":"double","value":0.10000000000000001},{"name":"dn","kind":"double","value":"nan"},{"name":"di","kind":"double","value":"-inf"},{"name":"dm","kind":"double","value":-0},{"name":"dt","kind":"double","value":4.9406564584124654e-324},{"name":"dx","kind":"double","value":1.7976931348623157e+308},{"name":"f","kind":"float","value":0.100000001},{"name":"fi","kind":"float","value":"inf"},{"name":"s","doc_string":"d","kind":"string","value":"héllo"},{"name":"y","kind":"bytes","value":""},{"name":"y2","kind":"bytes","value":"fbff00"},{"name":"n","kind":"none"},{"name":"","kind":"int32","value":0},{"name":"dl","kind":"double_list","value":[1.5,"nan",-1e+308]},{"name":"fl","kind":"float_list","value":[3.40282347e+38,1.40129846e-45]},{"name":"i32l","kind":"int32_list","value":[-1,0,2147483647]},{"name":"i64l","kind":"int64_list","value":[-9223372036854775808,9223372036854775807]},{"name":"u32l","kind":"uint32_list","value":[4294967295]},{"name":"u64l","kind":"uint64_list","value":[18446744073709551615,0]},{"name":"s32l","kind":"sint32_list","value":[-2147483648,5]},{"name":"s64l","kind":"sint64_list","value":[-9223372036854775808]},{"name":"f32l","kind":"fixed32_list","value":[1,4294967295]},{"name":"f64l","kind":"fixed64_list","value":[18446744073709551615]},{"name":"sf32l","kind":"sfixed32_list","value":[-2147483648]},{"name":"sf64l","kind":"sfixed64_list","value":[-1]},{"name":"bl","kind":"bool_list","value":[true,false,true]},{"name":"sl","kind":"string_list","value":["a","","c"]},{"name":"yl","kind":"bytes_list","value":["00","ff",""]},{"name":"el","kind":"int64_list","value":[]}]},
{"id":0,"name":"","type":0}
]}
EOT
fails=0
"$C" pack "$T/k.json" -o "$T/k.et" || fails=1
for et in "$D/chakra/chakra.0.et.gz" "$S/tests/fuzz/corpus/reader/dag-allkinds" "$T/k.et"; do
	for style in "" --pretty; do
		"$C" jsonize --protobuf-json $style "$et" -o "$T/o.json" -f || fails=$((fails + 1))
		py check "$et" "$T/o.json" || fails=$((fails + 1))
	done
done
rm -rf "$T"
exit $fails
