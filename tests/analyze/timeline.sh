# SPDX-License-Identifier: Apache-2.0
# chakra timeline error handling: every bad line is named FILE:LINE and
# nothing is written. (Output validity: check_analyze.py timeline.)
. "$(dirname "$0")/../need.sh" && need_data data/chakra/chakra.0.et.gz data/astra-sim
. "$(dirname "$0")/lib.sh"

ok() { printf '%s\n' "$@" >"$D/ev.csv"; }
ok 'issue,npu_id=0,cycle=10,node_id=5,node_name=a' 'callback,npu_id=0,cycle=30,node_id=5,node_name=a'
expect_rc 0 "$C" timeline "$D/ev.csv" --npus 1 --frequency 1 -o "$D/t.json"
grep -qF '"ph":"X","ts":0.01,"dur":0.02,"pid":0,"tid":0,"args":{"node_id":5' "$D/t.json" || fail "X event"
expect_rc 0 "$C" timeline "$D/ev.csv" --npus 1 --frequency 500MHz -o "$D/t.json" -f
grep -qF '"ts":0.02,"dur":0.04' "$D/t.json" || fail "500MHz"

bad() { # bad WANT_TEXT LINE...
	btext="$1"; shift
	printf '%s\n' "$@" >"$D/bad.csv"
	rm -f "$D/b.json"
	expect_rc 1 "$C" timeline "$D/bad.csv" --npus 2 --frequency 1 -o "$D/b.json"
	expect_err "$btext"
	[ ! -e "$D/b.json" ] || fail "output written for: $btext"
}
bad "bad.csv:2: npu_id 2 is out of range: --npus is 2" \
	'issue,npu_id=0,cycle=1,node_id=1,node_name=a' 'issue,npu_id=2,cycle=1,node_id=1,node_name=a'
bad "bad.csv:1: callback of node 1 on npu 0 without an open issue" \
	'callback,npu_id=0,cycle=1,node_id=1,node_name=a'
bad "bad.csv:3: callback of node 1 on npu 1 without an open issue" \
	'issue,npu_id=1,cycle=1,node_id=1,node_name=a' 'callback,npu_id=1,cycle=2,node_id=1,node_name=a' \
	'callback,npu_id=1,cycle=3,node_id=1,node_name=a'
bad "bad.csv:2: node 1 issued again on npu 0 before its callback (issued on line 1)" \
	'issue,npu_id=0,cycle=1,node_id=1,node_name=a' 'issue,npu_id=0,cycle=2,node_id=1,node_name=a'
bad "bad.csv:2: callback of node 1 on npu 0 at cycle 5 is before its issue at cycle 9" \
	'issue,npu_id=0,cycle=9,node_id=1,node_name=a' 'callback,npu_id=0,cycle=5,node_id=1,node_name=a'
bad "bad.csv:1: expected a line starting with 'issue,' or 'callback,'" 'start,npu_id=0,cycle=1,node_id=1,node_name=a'
bad "bad.csv:1: cycle: expected a non-negative integer, got '-4'" 'issue,npu_id=0,cycle=-4,node_id=1,node_name=a'
bad "bad.csv:1: cycle: expected a non-negative integer, got '99999999999999999999'" 'issue,npu_id=0,cycle=99999999999999999999,node_id=1,node_name=a'
bad "bad.csv:1: missing field(s): node_id node_name" 'issue,npu_id=0,cycle=1'
bad "bad.csv:1: unknown field 'npu'" 'issue,npu=0,cycle=1,node_id=1,node_name=a'
bad "bad.csv:1: field 'cycle' given twice" 'issue,npu_id=0,cycle=1,cycle=2,node_id=1,node_name=a'
bad "bad.csv:1: field 'garbage' is not key=value" 'issue,garbage'

# Unmatched issues at the end: reported, kept as instant events.
ok 'issue,npu_id=1,cycle=10,node_id=5,node_name=a'
expect_rc 0 "$C" timeline "$D/ev.csv" --npus 2 --frequency 1 -o "$D/t.json" -f
expect_err "ev.csv:1: warning: node 5 issued on npu 1 at cycle 10 never got a callback"
grep -qF '"ph":"i"' "$D/t.json" || fail "unfinished instant event"
# The simulator's event log (chakra sim --events) converts: 4 NPUs, one
# 1 MB all-reduce each, 43,000 cycles = 43 us at 1 GHz.
S="$CHAKRA_SHARED/data/astra-sim"
expect_rc 0 "$C" sim --workload "$S/microbenchmarks/all_reduce/4npus_1MB/all_reduce" \
	--network "$S/network/Ring_4npus.yml" --system "$S/system/Ring_4chunks.json" --events "$D/sim.csv"
expect_rc 0 "$C" timeline "$D/sim.csv" --npus 4 --frequency 1 -o "$D/sim.json"
[ "$(grep -o '"ph":"X"' "$D/sim.json" | wc -l)" = 4 ] || fail "sim timeline: 4 complete events"
[ "$(grep -o '"ts":0,"dur":43,' "$D/sim.json" | wc -l)" = 4 ] || fail "sim timeline: 43 us each"
[ "$(grep -o '"name":"process_name"' "$D/sim.json" | wc -l)" = 4 ] || fail "sim timeline: 4 processes"

# An empty log: processes only, and a warning.
: >"$D/empty.csv"
expect_rc 0 "$C" timeline "$D/empty.csv" --npus 2 --frequency 1 -o "$D/e.json"
expect_err "no events in the log"
[ "$(grep -o '"name":"process_name"' "$D/e.json" | wc -l)" = 2 ] || fail "empty log: 2 processes"

# Usage errors and input safety.
expect_rc 2 "$C" timeline "$D/ev.csv" --frequency 1 -o "$D/t.json"
expect_rc 2 "$C" timeline "$D/ev.csv" --npus 1 --frequency 0 -o "$D/t.json"
expect_rc 2 "$C" timeline "$D/ev.csv" --npus 1 --frequency 2THz -o "$D/t.json"
expect_rc 1 "$C" timeline "$D/ev.csv" --npus 2 --frequency 1 -o "$D/ev.csv"
expect_err "refusing to overwrite"
expect_rc 1 "$C" timeline "$D/missing.csv" --npus 1 --frequency 1 -o "$D/t.json"
expect_err "missing.csv: no such file or directory"
finish
