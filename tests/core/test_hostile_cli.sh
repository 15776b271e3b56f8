#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Hostile files through `chakra validate` and `chakra jsonize`: each gives
# its specific message with the byte offset and exit 1, never a crash or a
# silent early end, and jsonize leaves no half-written JSON behind.
set -u
. "$(dirname "$0")/../need.sh" && need_data data/chakra/chakra.0.et.gz
C=${CHAKRA_EXE:?}
D=${CHAKRA_SHARED:?}/data
T=$(mktemp -d "${TMPDIR:-/tmp}/core-hostile.XXXXXX") || exit 1
# (no `trap ... EXIT`: dash leaks memory for it, which CI's valgrind step counts)
cd "$T" || exit 1
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

gzip -dc "$D/chakra/chakra.0.et.gz" > c.et
# chakra.0.et: metadata at byte 0, first node at 95 (2-byte prefix, 5948 bytes)
head -c 3000 c.et > cut_msg.et
head -c 96 c.et > cut_pfx.et
: > empty.et
# compressed bytes from the middle of a .gz look random
tail -c +1001 "$D/pytorch/param-linear/linear_kineto.json.gz" | head -c 4096 > rnd.et
tail -c +96 c.et > nometa.et
{ head -c 95 c.et; printf '\377\377\377\377\017'; } > big.et
len=$(wc -c < "$D/chakra/chakra.0.et.gz")
head -c $((len / 2)) "$D/chakra/chakra.0.et.gz" > cut.et.gz

check() { # FILE VALIDATE-LINE JSONIZE-STDERR-LINE
	"$C" validate "$1" > v.out 2>&1
	rc=$?
	[ $rc -eq 1 ] || fail "validate $1: exit $rc, expected 1"
	grep -qxF -- "$2" v.out || { fail "validate $1: no line: $2"; sed 's/^/  | /' v.out >&2; }
	grep -q "could not be read to the end" v.out || fail "validate $1: no summary"
	rm -f out.json
	"$C" jsonize "$1" -o out.json 2> j.err
	rc=$?
	[ $rc -eq 1 ] || fail "jsonize $1: exit $rc, expected 1"
	[ ! -e out.json ] || fail "jsonize $1 left out.json"
	! grep -qE 'Sanitizer|runtime error' v.out j.err || fail "$1: sanitizer report"
	grep -qxF -- "$3" j.err || { fail "jsonize $1: no line: $3"; sed 's/^/  | /' j.err >&2; }
}
check cut_msg.et \
	"cut_msg.et:95: error: byte 95: message declares 5948 bytes but only 2903 remain (truncated file) (node index 0) [truncated input]" \
	"chakra: cut_msg.et: byte 95: message declares 5948 bytes but only 2903 remain (truncated file) (node index 0)"
check cut_pfx.et \
	"cut_pfx.et:95: error: byte 95: file ends inside a length prefix (1 byte(s) left) (node index 0) [truncated input]" \
	"chakra: cut_pfx.et: byte 95: file ends inside a length prefix (1 byte(s) left) (node index 0)"
check empty.et \
	"empty.et:0: error: byte 0: empty file: no GlobalMetadata message [no GlobalMetadata]" \
	"chakra: empty.et: byte 0: empty file: no GlobalMetadata message"
check rnd.et \
	"rnd.et:0: error: byte 0: first message is not a GlobalMetadata (byte 2: bad field tag); is this a Chakra ET file? [no GlobalMetadata]" \
	"chakra: rnd.et: byte 0: first message is not a GlobalMetadata (byte 2: bad field tag); is this a Chakra ET file?"
check nometa.et \
	"nometa.et:0: error: byte 0: first message is not a GlobalMetadata (byte 2: version field malformed (wire type 0)); is this a Chakra ET file? [no GlobalMetadata]" \
	"chakra: nometa.et: byte 0: first message is not a GlobalMetadata (byte 2: version field malformed (wire type 0)); is this a Chakra ET file?"
check big.et \
	"big.et:95: error: byte 95: length prefix 4294967295 exceeds the maximum message size 268435456 (node index 0) [message larger than the maximum]" \
	"chakra: big.et: byte 95: length prefix 4294967295 exceeds the maximum message size 268435456 (node index 0)"
check cut.et.gz \
	"cut.et.gz:1326027: error: compressed byte 76073: gzip stream ends early (truncated .gz file) (node index 2063) [damaged gzip stream]" \
	"chakra: cut.et.gz: compressed byte 76073: gzip stream ends early (truncated .gz file) (node index 2063)"
grep -qxF "cut.et.gz: 2063 nodes, 1 error(s), 0 warning(s); dependency checks skipped: the file could not be read to the end" v.out ||
	fail "cut.et.gz summary"
# a missing file
"$C" validate nosuch.et > v.out 2>&1
[ $? -eq 1 ] || fail "validate nosuch.et: expected exit 1"
grep -qxF "nosuch.et:0: error: no such file or directory" v.out || fail "nosuch.et message"
# several files: one bad one makes the exit 1, the good one still reports OK
"$C" validate "$D/astra-sim/microbenchmarks/all_reduce/4npus_1MB/all_reduce.0.et" empty.et > v.out 2>&1
[ $? -eq 1 ] || fail "mixed files: expected exit 1"
grep -q "all_reduce.0.et: 1 nodes, 0 error(s), 0 warning(s): OK" v.out || fail "mixed files: good one"

cd / && rm -rf "$T"
[ $fails -eq 0 ] && echo "all hostile-input checks passed"
exit $fails
