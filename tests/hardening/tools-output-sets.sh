#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The output rule (docs/hardening.md) for the files written by library
# calls and by commands that write several files: synth fit's model,
# convert's {R} ranks and PREFIX.comm_groups.json, synth sample's ranks,
# project's ranks and group file, sim --replay --timeline.
# - a device node is written into, never renamed over (a character device
#   made with mknod when run as root; a FIFO otherwise);
# - a symbolic link is followed (its target replaced, the link kept), a
#   dangling one refused without -f;
# - an output that is an input is refused even with -f;
# - a set lands whole or leaves the previous set as it was (a later rank
#   that fails no longer removes the earlier ranks' old files);
# - no temporary is left behind.
set -u
. "$(dirname "$0")/../need.sh" && need_data data/pytorch/chakra-allgather data/kineto/hta-critical-path
C=${CHAKRA_EXE:?}
D=${CHAKRA_SHARED:?}/data
t=$(mktemp -d "${TMPDIR:-/tmp}/tools-output-sets.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
f0=0
step_ok() { [ $fails -eq $f0 ] && ok "$1"; f0=$fails; } # ok if nothing failed since the last
no_tmp() { # DIR WHAT
	if ls -a "$1" | grep -q '\.tmp-\|\.old-'; then
		bad "$2: temporary left: $(ls -a "$1" | grep '\.tmp-\|\.old-' | tr '\n' ' ')"
		rm -f "$1"/*.tmp-* "$1"/*.old-*
	fi
}
# DEV: a device node where we can make one (root), else a FIFO with a reader
dev_kind=fifo
mkdev() { # PATH
	rm -f "$1"
	if mknod "$1" c 1 3 2>/dev/null; then dev_kind=chardev; else mkfifo "$1"; fi
}
is_dev() { # PATH
	if [ "$dev_kind" = chardev ]; then [ -c "$1" ]; else [ -p "$1" ]; fi
}
drain() { # PATH: a reader for a FIFO (a device needs none)
	[ "$dev_kind" = fifo ] && { cat "$1" >/dev/null & }
	return 0
}

# ---- synth fit -o DEV -f: the model goes into the device ----
"$C" generate model --model mlp --parallel data --npus 2 --batch 64 -o "$t/w" >/dev/null 2>&1 ||
	bad "generate model"
mkdev "$t/dev"
drain "$t/dev"
"$C" synth fit "$t/w" -o "$t/dev" -f >/dev/null 2>"$t/err" || bad "synth fit -o DEV: $(cat "$t/err")"
wait
is_dev "$t/dev" && ok "synth fit -o DEV -f: still a $dev_kind" || bad "synth fit replaced the $dev_kind"
printf 'old\n' >"$t/model.target" && ln -s model.target "$t/model.link"
"$C" synth fit "$t/w" -o "$t/model.link" -f >/dev/null 2>&1 || bad "synth fit -o LINK"
[ -L "$t/model.link" ] && grep -q '"version"\|{' "$t/model.target" && ok "synth fit -o LINK: target written, link kept" ||
	bad "synth fit -o LINK"
no_tmp "$t" "synth fit"

f0=$fails
# ---- convert '{R}' ----
mkdir -p "$t/mr"
ET=$D/pytorch/chakra-allgather/1.0.2-chakra.0.0.4.json
cp "$ET" "$t/mr/rank0.json"
cp "$ET" "$t/mr/rank1.json"
cp "$ET" "$t/mr/rank2.json"
# the previous set
for r in 0 1 2; do printf 'old %s\n' $r >"$t/mr/o.$r.et"; done
printf '{"old": [0]}\n' >"$t/mr/o.comm_groups.json"
# rank 2 fails: every old file stays as it was, nothing new appears
printf '{"schema": "1.0.2", "nodes": [' >"$t/mr/rank2.json"
"$C" convert pytorch --et "$t/mr/rank{R}.json" -o "$t/mr/o" -f -q 2>"$t/err"
[ $? -eq 1 ] || bad "convert {R}: a failing rank 2 did not fail"
for r in 0 1 2; do
	[ "$(cat "$t/mr/o.$r.et")" = "old $r" ] || bad "convert {R}: a failing later rank changed o.$r.et"
done
grep -q old "$t/mr/o.comm_groups.json" || bad "convert {R}: a failing rank changed the group file"
no_tmp "$t/mr" "convert {R} (failed)"
step_ok "convert {R} -f with a failing later rank: the previous set is intact"
# every rank fine: the whole set is replaced
cp "$ET" "$t/mr/rank2.json"
"$C" convert pytorch --et "$t/mr/rank{R}.json" -o "$t/mr/o" -f -q 2>"$t/err" || bad "convert {R}: $(cat "$t/err")"
for r in 0 1 2; do
	[ "$(cat "$t/mr/o.$r.et")" != "old $r" ] || bad "convert {R}: o.$r.et not replaced"
done
grep -q '"0": \[0, 1\]' "$t/mr/o.comm_groups.json" || bad "convert {R}: group file not replaced"
# an output that is an input is refused even with -f (and nothing is touched)
cp "$t/mr/rank1.json" "$t/mr/keep.json"
ln -f "$t/mr/rank1.json" "$t/mr/x.1.et"
"$C" convert pytorch --et "$t/mr/rank{R}.json" -o "$t/mr/x" -f -q 2>"$t/err"
[ $? -eq 1 ] && grep -q 'same file as input' "$t/err" && cmp -s "$t/mr/rank1.json" "$t/mr/keep.json" &&
	ok "convert {R}: an output that is an input refused with -f" ||
	bad "convert {R} onto its input: $(cat "$t/err")"
[ -e "$t/mr/x.0.et" ] && bad "convert {R} onto its input: rank 0 written"
# PREFIX.comm_groups.json a device: written into, not renamed over
mkdev "$t/mr/d.comm_groups.json"
drain "$t/mr/d.comm_groups.json"
"$C" convert pytorch --et "$t/mr/rank{R}.json" -o "$t/mr/d" -f -q 2>"$t/err" || bad "convert {R} DEV: $(cat "$t/err")"
wait
is_dev "$t/mr/d.comm_groups.json" && ok "convert {R} -f: PREFIX.comm_groups.json still a $dev_kind" ||
	bad "convert {R} replaced the $dev_kind"
no_tmp "$t/mr" "convert {R}"

f0=$fails
# ---- project ----
"$C" generate model --model mlp --parallel data --npus 2 --batch 256 -o "$t/m2" >/dev/null 2>&1 ||
	bad "generate model m2"
mkdir -p "$t/p"
for r in 0 1 2 3; do printf 'old %s\n' $r >"$t/p/q.$r.et"; done
printf 'old groups\n' >"$t/p/q.comm_groups.json"
# a failure half way (input rank 1 damaged: output ranks 1 and 3 read it)
cp "$t/m2.1.et" "$t/m2.1.et.good"
head -c 100 "$t/m2.1.et.good" >"$t/m2.1.et"
"$C" project "$t/m2" --dp 4 -o "$t/p/q" -f 2>"$t/err"
[ $? -eq 1 ] || bad "project: a damaged input rank did not fail"
for r in 0 1 2 3; do
	[ "$(cat "$t/p/q.$r.et")" = "old $r" ] || bad "project: a failure changed q.$r.et"
done
no_tmp "$t/p" "project (failed)"
step_ok "project -f with a failing rank: the previous set is intact"
mv "$t/m2.1.et.good" "$t/m2.1.et"
# the group file a device, the rank files links: followed
mkdev "$t/p/l.comm_groups.json"
drain "$t/p/l.comm_groups.json"
printf 'old\n' >"$t/p/target0" && ln -s target0 "$t/p/l.0.et"
"$C" project "$t/m2" --dp 4 -o "$t/p/l" -f 2>"$t/err" || bad "project -f: $(cat "$t/err")"
wait
is_dev "$t/p/l.comm_groups.json" || bad "project replaced the $dev_kind"
[ -L "$t/p/l.0.et" ] && [ "$(cat "$t/p/target0")" != old ] &&
	ok "project -f: the device written into, the link followed" || bad "project -f replaced the link"
no_tmp "$t/p" "project"

# ---- synth sample: a failure leaves the previous set ----
"$C" synth fit "$t/w" -o "$t/m.json" >/dev/null 2>&1 || bad "synth fit"
mkdir -p "$t/s"
for r in 0 1; do printf 'old %s\n' $r >"$t/s/y.$r.et"; done
"$C" synth sample "$t/m.json" --npus 2 --nodes 50 -o "$t/s/y" 2>"$t/err"
[ $? -eq 1 ] && grep -q exists "$t/err" || bad "synth sample without -f: $(cat "$t/err")"
"$C" synth sample "$t/m.json" --npus 2 --nodes 50 -o "$t/s/y" -f 2>"$t/err" || bad "synth sample -f: $(cat "$t/err")"
[ "$(cat "$t/s/y.0.et")" != "old 0" ] && [ "$(cat "$t/s/y.1.et")" != "old 1" ] ||
	bad "synth sample -f: not replaced"
no_tmp "$t/s" "synth sample"

# ---- sim --replay --timeline: the rule, not fopen("w") ----
"$C" convert kineto "$D/kineto/hta-critical-path/cuda_event_sync/event_sync_trace.json.gz" \
	-o "$t/k.et" -q 2>/dev/null
if [ -f "$t/k.et" ]; then
	printf 'precious\n' >"$t/tl.json"
	"$C" sim --replay --workload "$t/k.et" --timeline "$t/tl.json" >/dev/null 2>"$t/err"
	[ $? -eq 1 ] && grep -q 'exists; use -f' "$t/err" && [ "$(cat "$t/tl.json")" = precious ] &&
		ok "sim --replay --timeline: an existing file is kept without -f" ||
		bad "sim --replay --timeline overwrote without -f: $(cat "$t/err")"
	"$C" sim --replay --workload "$t/k.et" --timeline "$t/tl.json" -f >/dev/null 2>"$t/err" &&
	grep -q traceEvents "$t/tl.json" || bad "sim --replay --timeline -f: $(cat "$t/err")"
	ln -s "$t/made.json" "$t/dangling.json"
	"$C" sim --replay --workload "$t/k.et" --timeline "$t/dangling.json" >/dev/null 2>"$t/err"
	[ $? -eq 1 ] && [ -L "$t/dangling.json" ] && [ ! -e "$t/made.json" ] &&
		ok "sim --replay --timeline: a dangling link is not followed" ||
		bad "sim --replay --timeline followed a dangling link: $(cat "$t/err")"
	mkdev "$t/tl.dev"
	drain "$t/tl.dev"
	"$C" sim --replay --workload "$t/k.et" --timeline "$t/tl.dev" >/dev/null 2>"$t/err" ||
		bad "sim --replay --timeline DEV: $(cat "$t/err")"
	wait
	is_dev "$t/tl.dev" || bad "sim --replay --timeline replaced the $dev_kind"
	no_tmp "$t" "sim --replay --timeline"
else
	bad "convert kineto (the replay's input)"
fi
# ---- bench replay --file and bench sim --dir: scratch files under the rule ----
printf 'precious\n' >"$t/b.et"
"$C" bench replay --ops 200 --runs 1 --file "$t/b.et" >/dev/null 2>"$t/err"
[ $? -eq 1 ] && grep -q 'exists; use -f' "$t/err" && [ "$(cat "$t/b.et")" = precious ] &&
	ok "bench replay --file: an existing file is kept without -f" ||
	bad "bench replay --file overwrote without -f: $(cat "$t/err")"
"$C" bench replay --ops 200 --runs 1 --file "$t/b.et" -f >/dev/null 2>"$t/err" &&
	[ "$(cat "$t/b.et")" != precious ] || bad "bench replay --file -f: $(cat "$t/err")"
mkdir "$t/bs"
printf 'precious\n' >"$t/bs/network.yml"
"$C" bench sim --npus 8 --nodes 4 --runs 1 --dir "$t/bs" >/dev/null 2>"$t/err"
[ $? -eq 1 ] && grep -q 'exists; use -f' "$t/err" && [ "$(cat "$t/bs/network.yml")" = precious ] &&
	ok "bench sim --dir: a file of DIR is kept without -f" ||
	bad "bench sim --dir overwrote without -f: $(cat "$t/err")"
"$C" bench sim --npus 8 --nodes 4 --runs 1 --dir "$t/bs" -f >/dev/null 2>"$t/err" &&
	"$C" bench sim --npus 8 --nodes 4 --runs 1 --dir "$t/bs" >/dev/null 2>"$t/err" ||
	bad "bench sim --dir -f, then reused without -f: $(cat "$t/err")"
no_tmp "$t" "bench replay"
no_tmp "$t/bs" "bench sim"

[ $fails -eq 0 ] && echo "all output-set checks passed ($dev_kind as the device)"
exit $fails
