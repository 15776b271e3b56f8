#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The output rule (docs/hardening.md), for every command
# that writes a file: an existing output is replaced only with -f; a failed
# run leaves the old file as it was and no temporary behind; devices and
# FIFOs are written into, never replaced or removed; a symbolic link keeps
# pointing where it did; SIGINT / SIGTERM remove the temporary.
set -u
C=${CHAKRA_EXE:?}
D=${CHAKRA_SHARED:?}/data
t=$(mktemp -d "${TMPDIR:-/tmp}/tools-output.XXXXXX") || exit 1
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# is the process running (not exited, not a zombie waiting for wait)?
alive() { st=$(ps -o stat= -p "$1" 2>/dev/null); [ -n "$st" ] && [ "${st#Z}" = "$st" ]; }
# no temporary left in the folder
no_tmp() { ls "$t" | grep -q '\.tmp-' && { bad "$1: temporary left: $(ls "$t" | grep '\.tmp-')"; rm -f "$t"/*.tmp-*; }; return 0; }
ET=$D/astra-sim/microbenchmarks/all_reduce/4npus_1MB/all_reduce.0.et
printf 'issue,npu_id=0,cycle=1,node_id=1,node_name=a\ncallback,npu_id=0,cycle=5,node_id=1,node_name=a\n' >"$t/ev.csv"
"$C" jsonize "$ET" -o "$t/good.json" || bad "jsonize"
printf 'not a trace at all' >"$t/bad.et"

# Each command: its arguments with OUT standing for the output.
run() { # NAME OUT ARGS...
	name=$1 out=$2; shift 2
	set -- $(printf '%s\n' "$@" | sed "s|^OUT\$|$out|")
	"$C" "$@"
}
for cmd in "jsonize $ET -o OUT" "pack $t/good.json -o OUT" "stats $ET -o OUT" \
           "visualize $ET -o OUT --format dot" "timeline $t/ev.csv --npus 1 --frequency 1 -o OUT" \
           "generate synthetic 10 -o OUT"; do
	name=${cmd%% *}
	printf 'precious\n' >"$t/keep"
	# 1. an existing file is refused without -f, and kept
	run "$name" "$t/keep" $cmd >/dev/null 2>"$t/err"
	rc=$?
	[ $rc -eq 1 ] || bad "$name: existing output without -f: exit $rc"
	grep -q 'exists; use -f (--force) to replace it' "$t/err" || bad "$name: message: $(cat "$t/err")"
	[ "$(cat "$t/keep")" = precious ] || bad "$name: replaced an existing file without -f"
	# 2. with -f it is replaced
	run "$name" "$t/keep" $cmd -f >/dev/null 2>"$t/err" || bad "$name -f: $(cat "$t/err")"
	[ "$(cat "$t/keep")" != precious ] || bad "$name -f: not replaced"
	# 3. /dev/null stays a device; a FIFO gets the data and stays a FIFO
	run "$name" /dev/null $cmd >/dev/null 2>"$t/err" || bad "$name -o /dev/null: $(cat "$t/err")"
	[ -c /dev/null ] || bad "$name: /dev/null is no longer a character device"
	rm -f "$t/fifo" && mkfifo "$t/fifo"
	cat "$t/fifo" >"$t/fifo.out" &
	run "$name" "$t/fifo" $cmd >/dev/null 2>"$t/err" || bad "$name -o FIFO: $(cat "$t/err")"
	wait
	[ -p "$t/fifo" ] || bad "$name: the FIFO was replaced"
	[ -s "$t/fifo.out" ] || bad "$name: nothing written into the FIFO"
	# 4. a symbolic link: the target is replaced, the link stays
	printf 'old\n' >"$t/target" && rm -f "$t/link" && ln -s target "$t/link"
	run "$name" "$t/link" $cmd -f >/dev/null 2>"$t/err" || bad "$name -o LINK -f: $(cat "$t/err")"
	[ -L "$t/link" ] || bad "$name: the symbolic link was replaced by a file"
	[ "$(cat "$t/target")" != old ] || bad "$name: the link's target was not written"
	no_tmp "$name"
done

# 5. a failed run with -f leaves the old output as it was (jsonize and
#    visualize used to truncate it first and remove it on error)
for cmd in "jsonize $t/bad.et -o OUT -f" "visualize $t/bad.et -o OUT --format dot -f" \
           "stats $t/bad.et -o OUT -f" "pack $t/bad.et -o OUT -f" \
           "timeline $t/bad.et --npus 1 --frequency 1 -o OUT -f"; do
	name=${cmd%% *}
	printf 'important\n' >"$t/important"
	run "$name" "$t/important" $cmd >/dev/null 2>"$t/err"
	[ $? -eq 1 ] || bad "$name on a bad input: exit status"
	[ "$(cat "$t/important")" = important ] || bad "$name: a failed run changed the existing output"
	no_tmp "$name (failed run)"
done
# ... and a failed run on /dev/null as root keeps the device
"$C" jsonize "$t/bad.et" -o /dev/null 2>/dev/null
[ -c /dev/null ] || bad "jsonize: a failed run removed /dev/null"

# 6. convert text and generate micro: refuse before writing any file
W=$D/astra-sim/text_workloads/microAllReduce.txt
"$C" convert text "$W" --npus 4 -o "$t/w" >/dev/null 2>&1 || bad "convert text"
printf 'mine\n' >"$t/w.2.et"
rm -f "$t/w.0.et"
"$C" convert text "$W" --npus 4 -o "$t/w" >/dev/null 2>"$t/err" && bad "convert text replaced files without -f"
[ ! -e "$t/w.0.et" ] || bad "convert text wrote rank 0 before refusing rank 2"
[ "$(cat "$t/w.2.et")" = mine ] || bad "convert text replaced w.2.et"
"$C" convert text "$W" --npus 4 -o "$t/w" -f >/dev/null 2>"$t/err" || bad "convert text -f: $(cat "$t/err")"
"$C" validate "$t/w.2.et" >/dev/null || bad "convert text -f: w.2.et is not a trace"
no_tmp "convert text"

# 7. signals: the temporary goes with the process
# generate synthetic: interrupted while writing a large trace. (A shell
# starts background jobs with SIGINT ignored, nohup ignores SIGHUP, and the
# tools keep an ignored signal ignored: perl restores the defaults first.)
for sig in INT TERM HUP; do
	rm -f "$t/big.et"
	perl -e '$SIG{$_} = "DEFAULT" for qw(INT TERM HUP); exec @ARGV or die' \
		"$C" generate synthetic 2000000000 -o "$t/big.et" >/dev/null 2>&1 &
	pid=$!
	n=0
	while ! ls "$t" | grep -q 'big\.et\.tmp-' && [ $n -lt 400 ]; do sleep 0.05; n=$((n + 1)); done
	ls "$t" | grep -q 'big\.et\.tmp-' || bad "generate: no temporary seen (SIG$sig)"
	kill -$sig $pid
	# never hang the suite: a signal that does not end it (ignored, say) is
	# a failure after 60 s, and the process goes
	n=0
	while alive $pid && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
	alive $pid && { kill -KILL $pid; bad "generate: SIG$sig did not end it within 60 s"; }
	wait $pid
	rc=$?
	[ $rc -gt 128 ] || bad "generate: SIG$sig: exit $rc, expected death by the signal"
	[ ! -e "$t/big.et" ] || bad "generate: SIG$sig left big.et"
	no_tmp "generate (SIG$sig)"
done
# pack: waiting for the rest of its input from a FIFO
rm -f "$t/in.fifo" && mkfifo "$t/in.fifo"
"$C" pack "$t/in.fifo" -o "$t/p.et" >/dev/null 2>&1 &
pid=$!
exec 3>"$t/in.fifo"
printf '{"metadata":{"version":"x"},"nodes":[' >&3
n=0
while ! ls "$t" | grep -q 'p\.et\.tmp-' && [ $n -lt 400 ]; do sleep 0.05; n=$((n + 1)); done
ls "$t" | grep -q 'p\.et\.tmp-' || bad "pack: no temporary seen"
kill -TERM $pid
n=0
while alive $pid && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
alive $pid && { kill -KILL $pid; bad "pack: SIGTERM did not end it within 60 s"; }
wait $pid
exec 3>&-
[ ! -e "$t/p.et" ] || bad "pack: SIGTERM left p.et"
no_tmp "pack (SIGTERM)"
# convert pytorch: the same, its ET read from a FIFO (the output is the
# tool's temporary, which the library writes through a callback)
rm -f "$t/et.fifo" && mkfifo "$t/et.fifo"
"$C" convert pytorch --et "$t/et.fifo" -o "$t/c.et" -q >/dev/null 2>&1 &
pid=$!
exec 3>"$t/et.fifo"
printf '{"schema":"1.0.1","nodes":[' >&3
n=0
while ! ls "$t" | grep -q 'c\.et\.tmp-' && [ $n -lt 400 ]; do sleep 0.05; n=$((n + 1)); done
ls "$t" | grep -q 'c\.et\.tmp-' || bad "convert pytorch: no temporary seen"
kill -TERM $pid
n=0
while alive $pid && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
alive $pid && { kill -KILL $pid; bad "convert pytorch: SIGTERM did not end it within 60 s"; }
wait $pid
exec 3>&-
[ ! -e "$t/c.et" ] || bad "convert pytorch: SIGTERM left c.et"
no_tmp "convert pytorch (SIGTERM)"

rm -rf "$t"
[ $fails -eq 0 ] && echo "output rule: all checks passed"
exit $fails
