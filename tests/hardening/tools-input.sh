#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Hostile and unlucky inputs for the tools (and the interop
# checks): endless and repetitive input, capped
# reports, duplicate JSON keys, misleading messages, FIFOs where a second
# pass is needed, JSON given as a trace, comm sizes past int64, ASTRA-sim's
# own log lines in `chakra timeline`.
set -u
C=${CHAKRA_EXE:?}
D=${CHAKRA_SHARED:?}/data
t=$(mktemp -d "${TMPDIR:-/tmp}/tools-input.XXXXXX") || exit 1
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# has FILE TEXT: FILE contains TEXT (fixed string)
has() { grep -qF -- "$2" "$1" || { bad "$1 lacks: $2"; sed 's/^/  | /' "$1" | head -5; }; }
ET=$D/astra-sim/microbenchmarks/all_reduce/4npus_1MB/all_reduce.0.et

# ---- endless and repetitive input: bounded time, memory and output ----
# (a gzip of zeros is empty nodes, all id 0; so is /dev/zero)
head -c 20000000 /dev/zero | gzip -1 >"$t/zeros.gz"
for f in /dev/zero "$t/zeros.gz"; do
	timeout 60 "$C" validate "$f" >"$t/v.out" 2>&1
	rc=$?
	[ $rc -eq 1 ] || bad "validate $f: exit $rc (124 = did not stop)"
	has "$t/v.out" "stopped reading after 100 errors (--max-errors; 0 reads everything)"
	[ "$(wc -l <"$t/v.out")" -le 110 ] || bad "validate $f: $(wc -l <"$t/v.out") report lines"
	timeout 60 "$C" stats "$f" >"$t/s.out" 2>"$t/s.err"
	rc=$?
	[ $rc -eq 1 ] || bad "stats $f: exit $rc (124 = did not stop)"
	has "$t/s.err" "more than 100 nodes reuse an earlier id (first: id 0); stopped"
done
# the cap on error lines, with an exact count after it
awk 'BEGIN { printf "{\"metadata\":{\"version\":\"0.0.4\"},\"nodes\":["
             for (i = 0; i < 500; i++) printf "%s{\"id\":%d,\"data_deps\":[%d]}", i ? "," : "", i, 100000 + i
             print "]}" }' >"$t/absent.json"
"$C" pack "$t/absent.json" -o "$t/absent.et" || bad "pack absent.json"
"$C" validate "$t/absent.et" >"$t/v.out"
[ "$(grep -c 'which is not in the file' "$t/v.out")" -eq 100 ] || bad "validate: expected 100 error lines"
has "$t/v.out" "absent.et: 400 more error(s) not shown (--max-errors 100; 0 shows all)"
has "$t/v.out" "absent.et: 500 nodes, 500 error(s), 0 warning(s)"
"$C" validate --max-errors 3 "$t/absent.et" >"$t/v.out"
[ "$(grep -c 'which is not in the file' "$t/v.out")" -eq 3 ] || bad "validate --max-errors 3"
"$C" validate --max-errors 0 "$t/absent.et" >"$t/v.out"
[ "$(grep -c 'which is not in the file' "$t/v.out")" -eq 500 ] || bad "validate --max-errors 0"

# ---- pack: a key twice in one object is an error, in every form ----
dup() { # JSON EXPECTED
	printf '%s' "$1" >"$t/d.json"
	rm -f "$t/d.et"
	"$C" pack "$t/d.json" -o "$t/d.et" 2>"$t/err"
	[ $? -eq 1 ] || bad "pack accepted: $1"
	[ ! -e "$t/d.et" ] || bad "pack left an output for: $1"
	has "$t/err" "$2"
}
M='{"metadata":{"version":"0.0.4"},"nodes":['
dup "$M"'{"id":1,"id":2}]}' 'node 1: key "id" appears twice in one object'
dup "$M"'{"id":1}],"nodes":[]}' 'key "nodes" appears twice in one object'
dup '{"metadata":{},"metadata":{},"nodes":[]}' 'key "metadata" appears twice in one object'
dup "$M"'{"id":1,"attr":[{"name":"a","kind":"int64","value":1,"value":2}]}]}' 'key "value" appears twice'
dup '{"workload_graph":[{"Id":1,"is_cpu_op":true,"is_cpu_op":false}]}' 'key "is_cpu_op" appears twice in a node'
dup '{"workload_graph":[],"ngpus":8,"ngpus":4}' 'key "ngpus" appears twice in the top-level object'
dup '{"version":"1"}{"id":"1","dataDeps":["2"],"data_deps":["3"]}' 'key "data_deps" appears twice in one object'
dup '{"version":"1"}{"id":"1","attr":[{"name":"a","int64Val":"1","stringVal":"x"}]}' 'attribute has two values ("stringVal" and another member of the value oneof)'
# pack accepts protobuf JSON's quirks: nulls, original field names, numbers as strings
printf '%s' '[{"version":"0.0.4","attr":null},{"id":"7","name":null,"type":"4","data_deps":[1],"durationMicros":5,"attr":[{"name":"x","doc_string":"d","doubleVal":"Infinity"},{"name":"b","bytesVal":"AP8"},{"name":"l","int32List":{}},{"name":"e"}]}]' >"$t/q.json"
"$C" pack "$t/q.json" -o "$t/q.et" 2>"$t/err" || bad "pack protobuf quirks: $(cat "$t/err")"
"$C" jsonize "$t/q.et" >"$t/q.out" || bad "jsonize q.et"
has "$t/q.out" '{"id":7,"name":"","type":"COMP_NODE","ctrl_deps":[],"data_deps":[1],"start_time_micros":0,"duration_micros":5,"attr":[{"name":"x","doc_string":"d","kind":"double","value":"inf"},{"name":"b","kind":"bytes","value":"00ff"},{"name":"l","kind":"int32_list","value":[]},{"name":"e","kind":"none"}]}'

# ---- JSON where a trace is expected: the hint, not "truncated file" ----
printf '{"metadata":{"version":"0.0.4"},"nodes":[]}\n' >"$t/trace.et"
gzip -c "$t/trace.et" >"$t/trace.et.gz"
HINT="looks like JSON, not a Chakra ET: use chakra pack"
for f in "$t/trace.et" "$t/trace.et.gz" "$D/kineto/hta-nccl/nccl_data.json.gz"; do
	for cmd in "jsonize" "stats" "feed" "visualize --format dot -o $t/x.dot" "bench read"; do
		"$C" $cmd "$f" >/dev/null 2>"$t/err" && bad "$cmd accepted JSON"
		has "$t/err" "$f: $HINT"
		grep -q truncated "$t/err" && bad "$cmd $f: still says truncated"
	done
	"$C" validate "$f" >"$t/v.out"
	has "$t/v.out" "$f:0: error: $HINT"
done
# a real trace that is damaged still gets the reader's message
head -c 40 "$ET" >"$t/cut.et"
"$C" stats "$t/cut.et" 2>"$t/err" && bad "stats accepted a cut trace"
grep -q "$HINT" "$t/err" && bad "a cut trace got the JSON hint"
has "$t/err" "truncated"

# ---- stats: inputs and ranks, named right ----
"$C" stats /dev/zero >/dev/null 2>"$t/err"
grep -q "no such trace file" "$t/err" && bad "stats /dev/zero: 'no such trace file'"
mkdir -p "$t/wl" && cp "$ET" "$t/wl/w.0.et" && cp "$ET" "$t/wl/w.3.et"
"$C" stats "$t/wl/w" >"$t/s.out" 2>"$t/err" || bad "stats with a gap: $(cat "$t/err")"
has "$t/err" "warning: 2 of ranks 0..3 missing (no $t/wl/w.R.et or .et.gz for R = 1, 2)"
has "$t/s.out" "workload: $t/wl/w: 2 ranks (2 of 0..3 missing), 2 nodes"
has "$t/s.out" "== rank 3 =="
"$C" stats "$t/wl/w" --json >"$t/s.json" 2>/dev/null && has "$t/s.json" '"missing_ranks": ['
mkdir "$t/wl/w.1.et"
"$C" stats "$t/wl/w" >/dev/null 2>"$t/err" && bad "stats: a directory as rank 1 accepted"
has "$t/err" "$t/wl/w.1.et: is a directory, not rank 1's trace"
"$C" stats "$t/wl" >/dev/null 2>"$t/err" && bad "stats of a directory accepted"
has "$t/err" "$t/wl: is a directory"

# ---- FIFOs where a second pass would block or fail ----
mkfifo "$t/f1"
cat "$ET" >"$t/f1" &
timeout 20 "$C" visualize "$t/f1" --around 0 -o "$t/a.dot" 2>"$t/err"
rc=$?
[ $rc -eq 2 ] || bad "visualize --around FIFO: exit $rc (124 = blocked)"
has "$t/err" "--around reads TRACE twice: give a regular file, not stdin, a pipe or a device"
kill $! 2>/dev/null; wait
mkfifo "$t/f2"
cat "$ET" >"$t/f2" &
timeout 20 "$C" validate --deep "$t/f2" >"$t/v.out" 2>&1
rc=$?
wait
[ $rc -eq 0 ] || bad "validate --deep FIFO: exit $rc"
grep -q "out of memory" "$t/v.out" && bad "validate --deep FIFO: out of memory"
has "$t/v.out" "skipped for stdin, pipes and devices"
has "$t/v.out" "1 nodes, 0 error(s), 0 warning(s): OK"

# ---- convert text: comm sizes past int64 are refused, never wrapped ----
W=$t/big.txt
printf 'MICRO\n1\nconv1 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 9223372036854775808 5\n' >"$W"
"$C" convert text "$W" --npus 4 -o "$t/big" 2>"$t/err" && bad "convert text: 2^63 bytes accepted"
has "$t/err" "big.txt:3: layer conv1: weight-gradient collective of 9223372036854775808 bytes is past the largest comm_size an ET holds (2^63-1 bytes)"
"$C" convert text "$D/astra-sim/text_workloads/microAllReduce.txt" --npus 4 --comm-scale 1e30 \
	-o "$t/big" 2>"$t/err" && bad "convert text: --comm-scale 1e30 accepted"
has "$t/err" "times --comm-scale is past the largest comm_size"
[ ! -e "$t/big.0.et" ] || bad "convert text wrote a trace before refusing"

# ---- timeline: ASTRA-sim's own log lines, with or without the prefix ----
cat >"$t/ours.csv" <<'EOT'
issue,npu_id=0,cycle=100,node_id=3,node_name=gemm, fwd
issue,npu_id=1,cycle=150,node_id=3,node_name=ar
callback,npu_id=0,cycle=400,node_id=3,node_name=gemm, fwd
callback,npu_id=1,cycle=900,node_id=3,node_name=ar
EOT
cat >"$t/astra.log" <<'EOT'
[2024-05-01T10:00:00+0000] [I] <main>: ring of 2 NPUs
[2024-05-01T10:00:00+0000] [D] <workload>: issue,sys->id=0, tick=100, node->id=3, node->name=gemm, fwd, node->type=4
[2024-05-01T10:00:00+0000] [D] <workload>: issue,sys->id=1, tick=150, node->id=3, node->name=ar, node->type=7
[2024-05-01T10:00:01+0000] [D] <workload>: callback,sys->id=0, tick=400, node->id=3, node->name=gemm, fwd, node->type=4
[2024-05-01T10:00:01+0000] [I] <statistics>: sys->id=0, peak memory usage=0
[2024-05-01T10:00:02+0000] [D] <workload>: callback,sys->id=1, tick=900, node->id=3, node->name=ar, node->type=7
EOT
sed 's/^\[[^]]*\] \[[A-Z]\] <[a-z]*>: //' "$t/astra.log" | grep -E '^(issue|callback),' >"$t/astra-bare.log"
for f in ours.csv astra.log astra-bare.log; do
	"$C" timeline "$t/$f" --npus 2 --frequency 1 -o "$t/$f.json" 2>"$t/err" || bad "timeline $f: $(cat "$t/err")"
	sed 's/"source":"[^"]*",//' "$t/$f.json" >"$t/$f.norm"
done
cmp -s "$t/ours.csv.norm" "$t/astra.log.norm" || bad "timeline: ASTRA-sim's prefixed log differs from the same events in CSV"
cmp -s "$t/ours.csv.norm" "$t/astra-bare.log.norm" || bad "timeline: ASTRA-sim's bare lines differ from the same events in CSV"
has "$t/ours.csv.norm" '"name":"gemm, fwd","cat":"node","ph":"X","ts":0.1,"dur":0.3,"pid":0,"tid":0'
"$C" timeline "$t/astra.log" --npus 2 --frequency 1 -o "$t/x.json" -f 2>"$t/err"
has "$t/err" "note: 2 log lines that are not issue/callback events skipped (first: line 1)"
grep -v 'issue\|callback' "$t/astra.log" >"$t/noevents.log"
"$C" timeline "$t/noevents.log" --npus 2 --frequency 1 -o "$t/y.json" 2>"$t/err" && bad "timeline: a log without events accepted"
has "$t/err" "no issue/callback events: 2 lines with a logger prefix hold other messages (first: line 1)"

rm -rf "$t"
[ $fails -eq 0 ] && echo "tool inputs: all checks passed"
exit $fails
