#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# chakra-replay under `mpirun -np 4` on this machine only (shared memory and
# loopback): every collective's microbenchmark, a hybrid-parallel model with
# communicator groups (also through involved_dim), a send/recv ring, each
# with --verify (results are the sums / blocks / messages of the right
# ranks) and --log checked by check_log (every node once per iteration, in
# an order the dependencies allow, the trace's sizes, types, groups and
# peers); the JSON report with the simulator's prediction; and the errors:
# mismatched traces refused with the first difference named, a cross-rank
# deadlock turned into a timeout message on every rank, a wrong process
# count, usage errors. Skips (77) without mpirun or chakra-replay.
set -u
C=${CHAKRA_EXE:?}
R=${CHAKRA_REPLAY:-}
CHECK=${CHECK_LOG:?}
DATA=${CHAKRA_SHARED:?}/data/astra-sim
if [ -z "$R" ] || [ ! -x "$R" ]; then
	echo "skip: chakra-replay is not built (no MPI found at configure time)"
	exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
	echo "skip: no mpirun in PATH"
	exit 77
fi
# No network: processes on this machine only, shared memory between them
# (loopback TCP for the runtime), as root in a container.
export OMPI_MCA_btl=self,vader
export OMPI_MCA_btl_tcp_if_include=lo
export OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The ASan build: OpenMPI's own allocations outlive MPI_Finalize; they are
# suppressed by library name, which needs its plugins still loaded
# (nodlclose.c) and stacks unwound through its frame-pointer-less code.
# chakra-replay's own leaks are still reported.
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=${REPLAY_TESTS:?}/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:fast_unwind_on_malloc=0"
PRELOAD=${REPLAY_PRELOAD:?}

T=$(mktemp -d "${TMPDIR:-/tmp}/replay-mpi.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# mpirun N ARGS...: stdout to $T/out, stderr to $T/err, status in $rc.
run() {
	n=$1; shift
	timeout 120 mpirun -x LD_PRELOAD="$PRELOAD" -np "$n" "$R" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
# A replay that must succeed and whose log must check out.
replay_ok() { # name prefix nranks [groups] -- replay args
	name=$1 prefix=$2 n=$3 groups=$4; shift 4
	run "$n" "$prefix" --verify --log "$T/$name" --iters 2 --warmup 1 --timeout 60 "$@"
	if [ $rc -ne 0 ]; then
		fail "$name: exit $rc"; cat "$T/err"; return
	fi
	if ! "$CHECK" "$prefix" "$T/$name" "$n" 3 $groups; then
		fail "$name: the log does not match the trace"
	else
		echo "ok: $name"
	fi
}
# stderr must contain a fixed string.
expect_err() {
	if ! grep -qF -- "$1" "$T/err"; then
		fail "$2: stderr lacks: $1"; cat "$T/err"
	fi
}

gen() { "$C" "$@" >/dev/null || fail "chakra $*"; }

# 1. Microbenchmarks of every collective (chakra generate micro), and the
#    ones it does not generate (reduce, barrier), uneven sizes (reduce-
#    scatter and all-to-all split unevenly, byte elements) in one trace.
for coll in all_reduce all_gather reduce_scatter all_to_all broadcast; do
	gen generate micro --collective $coll --npus 4 --size 1048576 -o "$T/$coll"
	replay_ok "$coll" "$T/$coll" 4 ""
done
for r in 0 1 2 3; do
	cat >"$T/misc.$r.json" <<EOF
{"metadata":{"version":"0.0.4","attr":[]},"nodes":[
{"id":0,"name":"reduce","type":"COMM_COLL_NODE","data_deps":[],"attr":[{"name":"comm_type","kind":"int64","value":1},{"name":"comm_size","kind":"int64","value":65536}]},
{"id":1,"name":"barrier","type":"COMM_COLL_NODE","data_deps":[0],"attr":[{"name":"comm_type","kind":"int64","value":9}]},
{"id":2,"name":"rs_odd","type":"COMM_COLL_NODE","data_deps":[1],"attr":[{"name":"comm_type","kind":"int64","value":7},{"name":"comm_size","kind":"int64","value":1001}]},
{"id":3,"name":"a2a_uneven","type":"COMM_COLL_NODE","data_deps":[1],"attr":[{"name":"comm_type","kind":"int64","value":6},{"name":"comm_size","kind":"int64","value":1000}]},
{"id":4,"name":"ag_bytes","type":"COMM_COLL_NODE","data_deps":[],"attr":[{"name":"comm_type","kind":"int64","value":2},{"name":"comm_size","kind":"int64","value":6}]},
{"id":5,"name":"bcast","type":"COMM_COLL_NODE","data_deps":[4],"attr":[{"name":"comm_type","kind":"int64","value":5},{"name":"comm_size","kind":"int64","value":12}]},
{"id":6,"name":"compute","type":"COMP_NODE","data_deps":[2,3],"duration_micros":200,"attr":[]},
{"id":7,"name":"ar_after","type":"COMM_COLL_NODE","data_deps":[6],"attr":[{"name":"comm_type","kind":"int64","value":0},{"name":"comm_size","kind":"int64","value":4096}]}
]}
EOF
	gen pack "$T/misc.$r.json" -o "$T/misc.$r.et"
done
replay_ok misc "$T/misc" 4 "" --compute spin
# Independent ready collectives are in flight together: nodes 2 and 3 become
# ready when 1 completes, and both are posted before either completes.
for it in 0 1 2; do
	awk -v it=$it '$2 == it && (($1 == "I" && $3 == 3) || ($1 == "D" && $3 == 2)) { print $1 }' \
		"$T/misc.0.log" | head -1 | grep -q I || fail "misc: node 3 was not posted while node 2 ran (iteration $it)"
done

# 2. A hybrid-parallel model: groups from the group file; the same groups
#    from involved_dim on a 2x2 shape (as chakra sim resolves them).
gen generate model --model mlp --parallel hybrid --npus 4 --batch 64 --hidden 512 --layers 4 -o "$T/mlp"
replay_ok mlp "$T/mlp" 4 "$T/mlp.comm_groups.json"
grep -q 'ALL_GATHER .* ranks=2,3$' "$T/mlp.2.log" || fail "mlp: rank 2's all-gathers are not on ranks 2,3"
replay_ok mlp-dims "$T/mlp" 4 "$T/mlp.comm_groups.json" --no-comm-group --dims 2x2
gen generate model --model dlrm --parallel hybrid --npus 4 --batch 64 --tables 8 --emb-dim 16 --dense 64 --hidden 128 -o "$T/dlrm"
replay_ok dlrm "$T/dlrm" 4 "$T/dlrm.comm_groups.json" --compute skip

# 3. A send/recv ring.
gen generate micro --send-recv-ring --npus 4 --size 65536 -o "$T/ring"
replay_ok ring "$T/ring" 4 ""

# A real trace: a PyTorch execution trace with all-gathers, converted by
# chakra convert pytorch (one rank: the trace is rank 0's).
pt=${CHAKRA_SHARED}/data/pytorch/chakra-allgather/1.0.2-chakra.0.0.4.json
if [ -f "$pt" ]; then
	gen convert pytorch --et "$pt" -o "$T/pt.0.et" -q
	replay_ok pytorch "$T/pt" 1 ""
	grep -c ' ALL_GATHER 4 ranks=0$' "$T/pytorch.0.log" | grep -qx 30 || fail "pytorch: not 10 all-gathers per iteration"
fi

# 4. The report: JSON, with chakra sim's prediction (the 4-NPU all-reduce
#    microbenchmark ends at 43000 cycles = 43 us on Ring_4npus).
run 4 "$DATA/microbenchmarks/all_reduce/4npus_1MB/all_reduce" --iters 3 --json \
	--network "$DATA/network/Ring_4npus.yml" --system "$DATA/system/Ring_4chunks.json"
if [ $rc -ne 0 ]; then
	fail "json: exit $rc"; cat "$T/err"
elif ! /usr/bin/python3 - "$T/out" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
ops = r["operations"]
assert r["ranks"] == 4 and r["iterations"] == 3, r
assert len(ops) == 1 and ops[0]["op"] == "ALL_REDUCE" and ops[0]["size"] == 1048576, ops
assert ops[0]["ranks"] == 4 and ops[0]["calls"] == 1 and ops[0]["count"] == 12, ops
assert ops[0]["sim_time_us"] == 43.0, ops
t = ops[0]["time_us"]
assert 0 < ops[0]["min_us"] <= t <= ops[0]["max_us"], ops
assert abs(ops[0]["algbw_gbps"] - 1048576 / t / 1e3) < 1e-3 * ops[0]["algbw_gbps"] + 1e-4, ops
assert abs(ops[0]["busbw_gbps"] - 1.5 * ops[0]["algbw_gbps"]) < 1e-3, ops
assert len(r["per_rank"]) == 4 and r["sim_iteration_us"] == 43.0, r
for k in r["per_rank"]:
    assert 0 < k["comm_share"] <= 1 and k["sim_finish_us"] == 43.0 and k["nodes"] == 1, k
EOF
then
	fail "json: report"; cat "$T/out"
else
	echo "ok: json report with prediction"
fi
# The text report names every row and the prediction.
printf 'topology: [ Ring, Ring ]\nnpus_count: [ 2, 2 ]\nbandwidth: [ 50, 50 ]\nlatency: [ 500, 500 ]\n' >"$T/net22.yml"
run 4 "$T/mlp" --network "$T/net22.yml" --system "$DATA/system/tpu_v3_32_2dtorus.json"
if [ $rc -ne 0 ] || ! grep -q '^ALL_GATHER .*[0-9]$' "$T/out" || ! grep -q 'simulated:' "$T/out"; then
	fail "text report"; cat "$T/out" "$T/err"
else
	echo "ok: text report with prediction"
fi

# 5. Refusals: a collective that differs on one rank, and a message whose
#    size the receiver does not expect; nothing runs, exit status 1.
mkdir -p "$T/mm" "$T/pp"
for r in 0 1 2; do cp "$T/all_reduce.$r.et" "$T/mm/x.$r.et"; done
cp "$T/all_gather.3.et" "$T/mm/x.3.et"
run 4 "$T/mm/x" --log "$T/mm/log"
[ $rc -ne 0 ] || fail "mismatch: exit 0"
expect_err "chakra-replay: refusing to run $T/mm/x: collective #1 on all ranks (ranks 0 1 2 3) differs: rank 0 node 0 is ALL_REDUCE of 1048576 bytes, rank 3 node 3 is ALL_GATHER of 1048576 bytes" mismatch
grep -q '^I' "$T/mm/log.0.log" 2>/dev/null && fail "mismatch: something ran"
gen generate micro --send-recv-ring --npus 4 --size 4096 -o "$T/ring4k"
for r in 0 1 3; do cp "$T/ring.$r.et" "$T/pp/x.$r.et"; done
cp "$T/ring4k.2.et" "$T/pp/x.2.et"
run 4 "$T/pp/x"
[ $rc -ne 0 ] || fail "p2p mismatch: exit 0"
expect_err "message #1 from rank 1 to rank 2 with tag 0: rank 1 sends node 0 of 65536 bytes, but rank 2 receives node 1 of 4096 bytes" p2p-mismatch
expect_err "message #1 from rank 2 to rank 3 with tag 0: rank 2 sends node 0 of 4096 bytes, but rank 3 receives node 1 of 65536 bytes" p2p-mismatch
echo "ok: refusals"

# 6. A deadlock the digests cannot see (each rank receives before it
#    sends): --timeout stops it with a message from every rank.
for r in 0 1; do
	p=$((1 - r))
	cat >"$T/dl.$r.json" <<EOF
{"metadata":{"version":"0.0.4","attr":[]},"nodes":[
{"id":0,"name":"recv","type":"COMM_RECV_NODE","data_deps":[],"attr":[{"name":"comm_src","kind":"int64","value":$p},{"name":"comm_size","kind":"int64","value":1024}]},
{"id":1,"name":"send","type":"COMM_SEND_NODE","data_deps":[0],"attr":[{"name":"comm_dst","kind":"int64","value":$p},{"name":"comm_size","kind":"int64","value":1024}]}
]}
EOF
	gen pack "$T/dl.$r.json" -o "$T/dl.$r.et"
done
run 2 "$T/dl" --timeout 2
[ $rc -ne 0 ] || fail "deadlock: exit 0"
for r in 0 1; do
	grep -qE "^chakra-replay: rank $r: (timeout: no progress in 2 s|stopping: rank [01] timed out)" "$T/err" ||
		fail "deadlock: no timeout message from rank $r"
done
expect_err "waiting for node 0: RECV of 1024 bytes from rank 1 tag 0" deadlock
expect_err "waiting for node 0: RECV of 1024 bytes from rank 0 tag 0" deadlock
echo "ok: timeout"

# 7. Setup errors: process count, usage.
run 2 "$T/all_reduce"
[ $rc -ne 0 ] || fail "np: exit 0"
expect_err "the workload has 4 ranks ($T/all_reduce.0.et ... $T/all_reduce.3.et) but 2 processes run it: use mpirun -np 4" np
run 4 "$T/all_reduce" --compute nap
[ $rc -eq 2 ] || fail "usage: exit $rc"
expect_err "chakra-replay: --compute: 'nap' is not sleep, spin or skip" usage
printf "{\"1\": [0, 1], \"2\": [2\n" >"$T/bad.json"
run 4 "$T/mlp" --comm-group "$T/bad.json"
[ $rc -ne 0 ] || fail "bad group file: exit 0"
expect_err "bad.json:1: JSON syntax error" groups
run 4 "$T/mlp" --no-comm-group
[ $rc -ne 0 ] || fail "no shape: exit 0"
expect_err "involved_dim flags only some of 2 dimensions and the network shape is unknown" shape
echo "ok: setup errors"

# 9. A compute node of 2^64-1 us was slept through for ever (computing is
#    progress, so --timeout never stopped it): refused before running, as
#    chakra sim refuses a simulated time that reaches 2^64-1; and a rank's
#    compute per iteration above --max-compute.
for r in 0 1; do
	cat >"$T/long.$r.json" <<EOF
{"metadata":{"version":"0.0.4","attr":[]},"nodes":[
{"id":5,"name":"forever","type":"COMP_NODE","duration_micros":18446744073709551615,"data_deps":[],"attr":[]}
]}
EOF
	gen pack "$T/long.$r.json" -o "$T/long.$r.et"
	sed 's/18446744073709551615/5000000/' "$T/long.$r.json" >"$T/five.$r.json"
	gen pack "$T/five.$r.json" -o "$T/five.$r.et"
done
run 2 "$T/long" --timeout 5
[ $rc -ne 0 ] || fail "2^64-1 us compute: exit 0"
expect_err "2^64-1 ns of compute per iteration (node 5 alone" forever
run 2 "$T/five" --max-compute 1
[ $rc -ne 0 ] || fail "5 s compute over --max-compute 1: exit 0"
expect_err "(node 5 alone: 5 s) passes --max-compute 1 s" max-compute
run 2 "$T/long" --compute skip
[ $rc -eq 0 ] || { fail "--compute skip: exit $rc"; cat "$T/err"; }
echo "ok: compute capped"

# 8. --log files follow the output rule: an existing log is kept without
#    -f (the run stops before replaying), replaced with it.
printf 'precious\n' >"$T/kept.0.log"
run 4 "$T/all_reduce" --log "$T/kept"
[ $rc -ne 0 ] || fail "existing log: exit 0"
expect_err "kept.0.log: exists; use -f (--force) to replace it" existing-log
[ "$(cat "$T/kept.0.log")" = precious ] || fail "existing log replaced without -f"
run 4 "$T/all_reduce" --log "$T/kept" -f
[ $rc -eq 0 ] || { fail "log -f: exit $rc"; cat "$T/err"; }
grep -q '^I' "$T/kept.0.log" || fail "log -f: not replaced"
ls "$T" | grep -q '\.tmp-' && fail "log: temporary left"
echo "ok: --log output rule"

[ $fails -eq 0 ] && echo "all chakra-replay mpirun checks passed"
exit $((fails > 0))
