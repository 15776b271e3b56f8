# SPDX-License-Identifier: Apache-2.0
# chakra stats: the real trace's figures pinned (cross-checked by
# check_analyze.py stats, from the raw protobuf), a crafted graph worked out
# by hand, a microbenchmark workload per rank, errors. $1 = mktrace.
. "$(dirname "$0")/../need.sh" && need_data data/chakra/chakra.0.et.gz data/astra-sim/microbenchmarks
. "$(dirname "$0")/lib.sh"
MK="$1"

expect_rc 0 "$C" stats "$T"
O="$D/out"
expect_line "nodes: 3664 dependencies followed: data (181878 edges listed)" "$O"
expect_line " COMP_NODE 3643 343769" "$O"
expect_line " COMM_COLL_NODE 21 38026" "$O"
expect_line " ALL_REDUCE 5 102228128" "$O"
expect_line " BROADCAST 2 212904" "$O"
expect_line " (no comm_type) 14 0" "$O"
expect_line "duration_us: total 381795; cpu 52252 (2448 ops), gpu 329543 (1216 ops), no is_cpu_op 0 (0 nodes)" "$O"
expect_line "critical path: 46140 us over 1966 nodes" "$O"
expect_line "depth: 1966 nodes width: 318 nodes" "$O"
grep -q '^  ids: 216 217 1049 1051 1642 ' "$O" || fail "critical path ids"
# Control dependencies: the 383 self-dependencies, 1277 references to 210
# absent ids and the cycles are warnings, not failures.
expect_rc 0 "$C" stats "$T" --deps ctrl
expect_line "critical path: 8512 us over 1 nodes" "$O"
expect_line "depth: 6 nodes width: 1660 nodes" "$O"
expect_err "383 self-dependencies ignored (first: node 3322)"
expect_err "1277 dependencies on 210 id(s) not in the file ignored"
expect_err "764 node(s) are on or behind a cycle"
expect_rc 0 "$C" stats "$T" --deps both
expect_line "critical path: 18349 us over 419 nodes" "$O"
expect_line "depth: 439 nodes width: 213 nodes" "$O"
expect_err "2283 node(s) are on or behind a cycle"
expect_rc 0 "$C" stats "$T" --json
grep -q '"duration_micros": 46140' "$O" || fail "JSON critical path"

# Crafted graph (tests/analyze/mktrace.c): 10 <- 20 with 20 later in the
# file, 30 <- 10, 40 <- 20, 50 <- 30,40, 60 <-ctrl- 50, cycle 70 <-> 71,
# 80 <- absent 888; 30 lists itself and absent 999 as ctrl parents.
"$MK" graph "$D/g.et" || fail "mktrace graph"
expect_rc 0 "$C" stats "$D/g.et"
expect_line " COMP_NODE 6 117" "$O"
expect_line " COMM_SEND_NODE 1 2" "$O"
expect_line " COMM_COLL_NODE 2 101" "$O"
expect_line " ALL_REDUCE 1 1000" "$O"
expect_line " ALL_GATHER 1 50" "$O"
expect_line "point-to-point bytes: send 64, recv 0" "$O"
expect_line "duration_us: total 220; cpu 5 (1 ops), gpu 108 (3 ops), no is_cpu_op 107 (5 nodes)" "$O"
expect_line "critical path: 115 us over 4 nodes" "$O"
expect_line " ids: 20 10 30 50" "$O"
expect_line "depth: 4 nodes width: 3 nodes" "$O"
expect_err "2 node(s) are on or behind a cycle and left out of the path figures (first in the file: node 70)"
expect_err "1 dependencies on 1 id(s) not in the file ignored (first: node 80 -> 888)"
expect_rc 0 "$C" stats "$D/g.et" --deps ctrl
expect_line "critical path: 103 us over 2 nodes" "$O"
expect_line "depth: 2 nodes width: 8 nodes" "$O"
expect_rc 0 "$C" stats "$D/g.et" --deps both
expect_line "critical path: 215 us over 5 nodes" "$O"
expect_line " ids: 20 10 30 50 60" "$O"
expect_line "depth: 5 nodes width: 2 nodes" "$O"
expect_err "1 self-dependencies ignored (first: node 30)"
expect_err "2 dependencies on 2 id(s) not in the file ignored"

# A reused id: dependencies go to the first node with it; a warning.
"$MK" dup "$D/dup.et" || fail "mktrace dup"
expect_rc 0 "$C" stats "$D/dup.et"
expect_line "critical path: 80 us over 3 nodes" "$O"
expect_line " ids: 1 2 1" "$O"
expect_err "1 node(s) reuse an earlier id (first: id 1)"
# Empty trace (metadata only) and stdin.
printf '\007\012\0050.0.4' >"$D/empty.et"
expect_rc 0 "$C" stats "$D/empty.et"
expect_line "nodes: 0 dependencies followed: data (0 edges listed)" "$O"
expect_line "critical path: 0 us over 0 nodes" "$O"
expect_rc 0 sh -c '"$0" stats - < "$1"' "$C" "$T"
expect_line "critical path: 46140 us over 1966 nodes" "$O"

# A workload PREFIX: one section per rank.
P="$CHAKRA_SHARED/data/astra-sim/microbenchmarks/all_reduce/8npus_1MB/all_reduce"
expect_rc 0 "$C" stats "$P"
[ "$(grep -c '^== rank ' "$O")" = 8 ] || fail "8 ranks"
grep -q "^workload: .*: 8 ranks, 8 nodes" "$O" || fail "workload summary"
[ "$(tr -s ' ' <"$O" | grep -cx ' ALL_REDUCE 1 1048576')" = 8 ] || fail "1 MB all-reduce per rank"
expect_rc 0 "$C" stats "$P" --json
grep -q '"ranks": 8' "$O" || fail "JSON ranks"
[ "$(grep -c '"file": ' "$O")" = 8 ] || fail "JSON per rank"
P="$CHAKRA_SHARED/data/astra-sim/microbenchmarks/all_to_all/16npus_1MB/all_to_all"
expect_rc 0 "$C" stats "$P"
[ "$(grep -c '^== rank ' "$O")" = 16 ] || fail "16 ranks"

# Errors.
expect_rc 1 "$C" stats "$D/nope"
expect_err "no such file or directory, and no workload"
gzip -dc "$T" | head -c 100000 >"$D/trunc.et"
expect_rc 1 "$C" stats "$D/trunc.et"
expect_err "trunc.et"
expect_rc 2 "$C" stats "$T" --deps sideways
cp "$T" "$D/in.et.gz"
expect_rc 1 "$C" stats "$D/in.et.gz" -o "$D/in.et.gz"
cmp -s "$T" "$D/in.et.gz" || fail "input was overwritten"
finish
