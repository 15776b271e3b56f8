#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `chakra convert pytorch|kineto` from the command line: every shared trace
# converts; every output passes `chakra validate`, feeds to the end with
# --deps both and simulates with `chakra sim`; the multi-rank form writes
# PREFIX.R.et for each rank and the communicator groups, and simulates as one
# workload; outputs are never replaced without -f; errors name the file and
# the event, exit 1, and leave nothing behind; usage errors exit 2.
set -u
exe=${CHAKRA_EXE:?}
data=${CHAKRA_SHARED:?}/data
tmp=$(mktemp -d /tmp/chakra-convert-cli-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
sys=$data/astra-sim/system/Ring_4chunks.json
net() { printf 'topology: [ Ring ]\nnpus_count: [ %s ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' "$1" >"$tmp/net$1.yml"; }
net 1
net 2

# one output: valid, fed to the end with data+ctrl deps, simulated
check_out() { # name file
	"$exe" validate "$2" >"$tmp/v" 2>&1 || { say "$1: validate"; cat "$tmp/v"; }
	"$exe" feed "$2" --deps both >/dev/null 2>"$tmp/f" || { say "$1: feed --deps both"; cat "$tmp/f"; }
	mkdir -p "$tmp/w/$1"
	cp "$2" "$tmp/w/$1/t.0.et"
	"$exe" sim --workload "$tmp/w/$1/t" --network "$tmp/net1.yml" --system "$sys" --deps both --json \
		>"$tmp/s" 2>&1 || { say "$1: sim"; cat "$tmp/s"; }
	grep -q '"finish_cycles"' "$tmp/s" || say "$1: sim printed no finish"
}

pt=$data/pytorch
k=$data/kineto
n=0
for et in "$pt/chakra-allgather/1.0.2-chakra.0.0.4.json" "$pt/hta-simple-add/benchmark_simple_add_et.json.gz" \
	"$pt/param-linear/linear_et.json.gz" "$pt/param-resnet50-ddp/resnet_1gpu_et.json.gz"; do
	[ -f "$et" ] || continue
	n=$((n + 1))
	"$exe" convert pytorch --et "$et" -o "$tmp/et$n.et" 2>"$tmp/sum" || { say "convert pytorch $et"; cat "$tmp/sum"; continue; }
	grep -q '^wrote: ' "$tmp/sum" || say "no summary for $et"
	check_out "et$n" "$tmp/et$n.et"
done
for pair in "$pt/hta-simple-add/benchmark_simple_add_et.json.gz $pt/hta-simple-add/benchmark_simple_add_trace.json.gz" \
	"$pt/param-linear/linear_et.json.gz $pt/param-linear/linear_kineto.json.gz" \
	"$pt/param-resnet50-ddp/resnet_1gpu_et.json.gz $k/hta-nccl/nccl_data.json.gz"; do
	set -- $pair
	[ -f "$1" ] && [ -f "$2" ] || continue
	n=$((n + 1))
	"$exe" convert pytorch --et "$1" --kineto "$2" -o "$tmp/pair$n.et" --gzip 2>"$tmp/sum" ||
		{ say "convert pytorch $1 + $2"; cat "$tmp/sum"; continue; }
	grep -q 'kernels with a host op' "$tmp/sum" || say "no link shares for $1"
	check_out "pair$n" "$tmp/pair$n.et"
done
for kt in "$k"/*/*.json.gz "$k"/hta-critical-path/*/*.json.gz "$pt/param-linear/linear_kineto.json.gz" \
	"$pt/hta-simple-add/benchmark_simple_add_trace.json.gz"; do
	[ -f "$kt" ] || continue
	n=$((n + 1))
	"$exe" convert kineto "$kt" -o "$tmp/k$n.et" 2>"$tmp/sum" || { say "convert kineto $kt"; cat "$tmp/sum"; continue; }
	check_out "k$n" "$tmp/k$n.et"
done
[ $n -ge 13 ] || say "only $n conversions ran"

# one step of the ResNet trace, by step number and by annotation name: same file
if [ -f "$k/hta-nccl/nccl_data.json.gz" ]; then
	"$exe" convert kineto "$k/hta-nccl/nccl_data.json.gz" --step 5 -o "$tmp/s5.et" -q || say "--step 5"
	"$exe" convert kineto "$k/hta-nccl/nccl_data.json.gz" --annotation 'ProfilerStep#5' -o "$tmp/a5.et" -q ||
		say "--annotation"
	cmp -s "$tmp/s5.et" "$tmp/a5.et" || say "--step 5 and --annotation ProfilerStep#5 differ"
	"$exe" jsonize "$tmp/s5.et" | head -1 | grep -q '"name":"window","kind":"string","value":"ProfilerStep#5"' ||
		say "no window in the metadata"
	"$exe" convert kineto "$k/hta-nccl/nccl_data.json.gz" --step 9 -o "$tmp/s9.et" 2>"$tmp/e"
	[ $? -eq 1 ] || say "--step 9 should fail"
	grep -q "no user annotation 'ProfilerStep#9'.*ProfilerStep#4" "$tmp/e" || { say "--step 9 message"; cat "$tmp/e"; }
	[ -e "$tmp/s9.et" ] && say "--step 9 left an output"
fi

# one iteration between two occurrences of an annotation (--to-next): the
# window ends where the next one starts, on the annotation's thread; the
# last occurrence has no next one
lin=$pt/param-linear/linear_kineto.json.gz
zg='Optimizer.zero_grad#SGD.zero_grad'
if [ -f "$lin" ]; then
	"$exe" convert kineto "$lin" --annotation "$zg" --instance 5 --to-next -o "$tmp/it5.et" -q ||
		say "--to-next"
	"$exe" jsonize "$tmp/it5.et" | head -1 >"$tmp/m"
	grep -q '"name":"window_tid","kind":"int64","value":24248' "$tmp/m" || say "--to-next: no window_tid"
	grep -q '"name":"converter","kind":"string","value":"libchakra convert 3"' "$tmp/m" ||
		say "--to-next: converter format"
	check_out it5 "$tmp/it5.et"
	"$exe" convert kineto "$lin" --annotation "$zg" --instance 39 --to-next -o "$tmp/it39.et" 2>"$tmp/e"
	[ $? -eq 1 ] || say "--to-next on the last occurrence: exit status"
	grep -q "occurs 40 time(s): instance 39 has no next occurrence" "$tmp/e" ||
		{ say "--to-next on the last occurrence: message"; cat "$tmp/e"; }
	[ -e "$tmp/it39.et" ] && say "--to-next on the last occurrence left an output"
fi

# outputs are replaced only with -f; the input is never the output
et1=$pt/hta-simple-add/benchmark_simple_add_et.json.gz
"$exe" convert pytorch --et "$et1" -o "$tmp/once.et" -q || say "first write"
if "$exe" convert pytorch --et "$et1" -o "$tmp/once.et" -q 2>"$tmp/e"; then say "overwrote without -f"; fi
grep -q exists "$tmp/e" || say "no 'exists' message"
"$exe" convert pytorch --et "$et1" -o "$tmp/once.et" -q -f || say "-f did not replace"
cp "$et1" "$tmp/in.json.gz"
"$exe" convert pytorch --et "$tmp/in.json.gz" -o "$tmp/in.json.gz" -f -q 2>/dev/null && say "wrote over its input"
cmp -s "$et1" "$tmp/in.json.gz" || say "input damaged"

# errors: file, event index, byte; exit 1; no output
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"dur":1},' >"$tmp/bad.json"
"$exe" convert kineto "$tmp/bad.json" -o "$tmp/bad.et" 2>"$tmp/e"
[ $? -eq 1 ] || say "bad kineto: exit status"
grep -q "bad.json: event 0.*has no 'ts'" "$tmp/e" || { say "bad kineto message"; cat "$tmp/e"; }
[ -e "$tmp/bad.et" ] && say "bad kineto left an output"
# times at the limit convert (a start plus a duration must not overflow:
# a fuzzer found it did); beyond the limit, an error naming the event
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":2305843009213693,"dur":2305843009213693,"args":{"External id":1}}]}' >"$tmp/big.json"
"$exe" convert kineto "$tmp/big.json" -o "$tmp/big.et" -q 2>"$tmp/e" || { say "times at the limit refused"; cat "$tmp/e"; }
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":9.1e15,"args":{}}]}' >"$tmp/huge.json"
"$exe" convert kineto "$tmp/huge.json" -o "$tmp/huge.et" 2>"$tmp/e"
[ $? -eq 1 ] || say "huge dur: exit status"
grep -q "huge.json: event 0.*'dur' is not a number of microseconds (at most" "$tmp/e" || { say "huge dur message"; cat "$tmp/e"; }
[ -e "$tmp/huge.et" ] && say "huge dur left an output"
zcat "$pt/param-resnet50-ddp/resnet_1gpu_et.json.gz" | head -c 300000 >"$tmp/cut.json"
"$exe" convert pytorch --et "$tmp/cut.json" -o "$tmp/cut.et" 2>"$tmp/e"
[ $? -eq 1 ] || say "truncated ET: exit status"
grep -q "cut.json: node [0-9]* (byte [0-9]*): the JSON ends early" "$tmp/e" || { say "truncated ET message"; cat "$tmp/e"; }
[ -e "$tmp/cut.et" ] && say "truncated ET left an output"
head -c 100000 "$k/hta-nccl/nccl_data.json.gz" >"$tmp/cut.json.gz"
"$exe" convert kineto "$tmp/cut.json.gz" -o "$tmp/cutk.et" 2>"$tmp/e"
[ $? -eq 1 ] || say "truncated gzip: exit status"
grep -q "cut.json.gz: compressed byte 100000: gzip stream ends early" "$tmp/e" || { say "truncated gzip message"; cat "$tmp/e"; }

# usage errors exit 2
"$exe" convert pytorch -o "$tmp/x.et" 2>/dev/null; [ $? -eq 2 ] || say "no --et: not a usage error"
"$exe" convert kineto "$et1" 2>/dev/null; [ $? -eq 2 ] || say "no -o: not a usage error"
"$exe" convert kineto "$et1" -o "$tmp/x.et" --step 1 --annotation a 2>/dev/null; [ $? -eq 2 ] || say "--step with --annotation"
"$exe" convert kineto "$et1" -o "$tmp/x.et" --step -3 2>/dev/null; [ $? -eq 2 ] || say "--step -3"
"$exe" convert kineto "$et1" -o "$tmp/x.et" --to-next 2>"$tmp/e"; [ $? -eq 2 ] || say "--to-next alone"
grep -q "to-next goes with --annotation" "$tmp/e" || { say "--to-next alone: message"; cat "$tmp/e"; }
"$exe" convert kineto "$et1" -o "$tmp/x.et" --to-nxt 2>"$tmp/e"; [ $? -eq 2 ] || say "--to-nxt"
grep -q "did you mean '--to-next'" "$tmp/e" || { say "--to-nxt: no suggestion"; cat "$tmp/e"; }
"$exe" convert kineto --help | grep -q -- '--to-next' || say "convert kineto --help"
"$exe" convert pytorch --help | grep -q 'convert pytorch' || say "--help"

# multi-rank: two ranks of the all-gather benchmark (ET alone) and of the
# simple-add pair (ET + Kineto; rank 1's Kineto says rank 1)
mkdir -p "$tmp/mr"
cp "$pt/chakra-allgather/1.0.2-chakra.0.0.4.json" "$tmp/mr/rank0.json"
cp "$pt/chakra-allgather/1.0.2-chakra.0.0.4.json" "$tmp/mr/rank1.json"
"$exe" convert pytorch --et "$tmp/mr/rank{R}.json" -o "$tmp/mr/ag" 2>"$tmp/e" || { say "multi-rank ET"; cat "$tmp/e"; }
grep -q '^rank 1:' "$tmp/e" && grep -q 'converted 2 rank(s)' "$tmp/e" || { say "multi-rank summary"; cat "$tmp/e"; }
[ -f "$tmp/mr/ag.0.et" ] && [ -f "$tmp/mr/ag.1.et" ] && [ ! -e "$tmp/mr/ag.2.et" ] || say "multi-rank files"
grep -q '"0": \[0, 1\]' "$tmp/mr/ag.comm_groups.json" || { say "comm groups"; cat "$tmp/mr/ag.comm_groups.json"; }
"$exe" sim --workload "$tmp/mr/ag" --network "$tmp/net2.yml" --system "$sys" --deps both \
	--comm-group "$tmp/mr/ag.comm_groups.json" >"$tmp/s" 2>&1 || { say "multi-rank sim"; cat "$tmp/s"; }
grep -q "2 NPUs" "$tmp/s" || say "multi-rank sim output"
"$exe" convert pytorch --et "$tmp/mr/rank{R}.json" -o "$tmp/mr/ag" 2>/dev/null && say "multi-rank overwrote"
cp "$pt/hta-simple-add/benchmark_simple_add_et.json.gz" "$tmp/mr/et0.json.gz"
cp "$pt/hta-simple-add/benchmark_simple_add_et.json.gz" "$tmp/mr/et1.json.gz"
cp "$pt/hta-simple-add/benchmark_simple_add_trace.json.gz" "$tmp/mr/k0.json.gz"
zcat "$pt/hta-simple-add/benchmark_simple_add_trace.json.gz" | sed 's/"rank": *0/"rank": 1/' >"$tmp/mr/k1.json"
# rank 0's Kineto trace is missing (k0.json.gz is not k0.json): nothing is written
"$exe" convert pytorch --et "$tmp/mr/et{R}.json.gz" --kineto "$tmp/mr/k{R}.json" -o "$tmp/mr/sa" 2>"$tmp/e" &&
	say "a missing Kineto trace accepted"
grep -q "k0.json: no such file (the Kineto trace of rank 0)" "$tmp/e" || { say "missing rank message"; cat "$tmp/e"; }
[ -e "$tmp/mr/sa.1.et" ] && say "a failed multi-rank run left rank 1 behind"
mv "$tmp/mr/k0.json.gz" "$tmp/mr/k0.json.gz.tmp" && zcat "$tmp/mr/k0.json.gz.tmp" >"$tmp/mr/k0.json"
"$exe" convert pytorch --et "$tmp/mr/et{R}.json.gz" --kineto "$tmp/mr/k{R}.json" -o "$tmp/mr/sa" --gzip 2>"$tmp/e" ||
	{ say "multi-rank pair"; cat "$tmp/e"; }
[ -f "$tmp/mr/sa.1.et.gz" ] || say "multi-rank pair: no sa.1.et.gz"
"$exe" sim --workload "$tmp/mr/sa" --network "$tmp/net2.yml" --system "$sys" --deps both >/dev/null 2>&1 ||
	say "multi-rank pair sim"
# a rank whose trace says it is another rank
cp "$tmp/mr/k0.json" "$tmp/mr/k1.json"
"$exe" convert pytorch --et "$tmp/mr/et{R}.json.gz" --kineto "$tmp/mr/k{R}.json" -o "$tmp/mr/sb" 2>"$tmp/e"
[ $? -eq 1 ] || say "rank mismatch accepted"
grep -q "k1.json: the trace says it is rank 0" "$tmp/e" || { say "rank mismatch message"; cat "$tmp/e"; }
[ -e "$tmp/mr/sb.0.et" ] && say "rank mismatch left rank 0 behind"
# counter events (HTA's queue length and bandwidth, Kineto's hardware counters)
# carry no work: the trace converts to the same bytes with or without them
"$exe" convert kineto "$k/hta-critical-path/cuda_event_sync/event_sync_trace.json.gz" --step 100 \
	-o "$tmp/nocount.et" 2>/dev/null || say "convert cuda_event_sync"
"$exe" convert kineto "$k/hta-counters/event_sync_with_counters.json.gz" --step 100 \
	-o "$tmp/count.et" 2>"$tmp/e" || { say "convert with counters"; cat "$tmp/e"; }
grep -q "read: 108 Kineto events" "$tmp/e" || { say "counters: events read"; cat "$tmp/e"; }
cmp -s "$tmp/nocount.et" "$tmp/count.et" || say "counter events changed the conversion"
# an ET and a Kineto trace of different programs: nothing links, refused
# (it wrote the ET alone with exit 0); a pair that links little: a warning
"$exe" convert pytorch --et "$pt/hta-simple-add/benchmark_simple_add_et.json.gz" \
	--kineto "$data/kineto/hta-critical-path/cuda_event_sync/event_sync_trace.json.gz" \
	-o "$tmp/unrelated.et" -f 2>"$tmp/e"
[ $? -eq 1 ] || say "unrelated ET and Kineto trace accepted"
grep -q "none of the ET's 10 host ops matches a Kineto op" "$tmp/e" || { say "unrelated: message"; cat "$tmp/e"; }
[ -e "$tmp/unrelated.et" ] && say "unrelated: output written"
"$exe" convert pytorch --et "$pt/chakra-allgather/1.0.2-chakra.0.0.4.json" \
	--kineto "$pt/hta-simple-add/benchmark_simple_add_trace.json.gz" -o "$tmp/loose.et" -f -q 2>"$tmp/e" ||
	say "loosely linked pair: $(cat "$tmp/e")"
grep -q "warning: .*only 0 of 1 kernels found their ET op" "$tmp/e" || { say "loose pair: no warning"; cat "$tmp/e"; }
# Kineto alone, multi-rank
"$exe" convert kineto "$tmp/mr/k{R}.json" -o "$tmp/mr/kk" -f 2>/dev/null && say "two rank-0 traces accepted"
exit $fail
