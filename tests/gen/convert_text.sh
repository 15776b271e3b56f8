#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `chakra convert text`: values and groups on real workloads, and every
# kind of bad input named with FILE:LINE and a non-zero exit.
set -u
. "$(dirname "$0")/../need.sh" && need_data data/astra-sim/text_workloads
exe=${CHAKRA_EXE:?}
wl=${CHAKRA_SHARED:?}/data/astra-sim/text_workloads
tmp=$(mktemp -d /tmp/chakra-gen-text-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
node() { # node NAME FILE: the jsonize line of that node
	"$exe" jsonize "$2" | grep "\"name\":\"$1\""
}

# Cycles stay exact: 32291 cycles at 1 GHz = 32291 ns, 32 whole microseconds.
"$exe" convert text "$wl/MLP_ModelParallel.txt" --npus 16 -o "$tmp/mp" || bad "convert MLP"
l=$(node layer_64_1_mlp0_fwd "$tmp/mp.5.et")
echo "$l" | grep -q '"duration_micros":32,' || bad "duration_micros: $l"
echo "$l" | grep -q '"name":"duration_nanos","kind":"uint64","value":32291}' || bad "duration_nanos: $l"
echo "$l" | grep -q '"name":"is_cpu_op","kind":"bool","value":false' || bad "is_cpu_op: $l"
echo "$l" | grep -q '"id":0,' || bad "ids start at 0 on every rank: $l"
# --ghz 2: a cycle is half a nanosecond.
"$exe" convert text "$wl/MLP_ModelParallel.txt" --npus 16 --ghz 2 -o "$tmp/mp2" || bad "ghz"
node layer_64_1_mlp0_fwd "$tmp/mp2.5.et" | grep -q '"value":16146}' || bad "--ghz 2"

# HYBRID_DATA_MODEL and HYBRID_MODEL_DATA differ: model parallel on dim 0
# (blocks of 4) versus on dim 1 (stride 4) of the default 4x4 network.
"$exe" convert text "$wl/MLP_HybridParallel_Data_Model.txt" --npus 16 -o "$tmp/dm" || bad "DM"
"$exe" convert text "$wl/MLP_HybridParallel_Model_Data.txt" --npus 16 -o "$tmp/md" || bad "MD"
node layer_64_2_mlp1_fwd_ALLGATHER "$tmp/dm.6.et" | grep -q '"value":\[true,false\]' || bad "DM fwd dims"
node layer_64_2_mlp1_wg_ALLREDUCE "$tmp/dm.6.et" | grep -q '"value":\[false,true\]' || bad "DM wg dims"
node layer_64_2_mlp1_fwd_ALLGATHER "$tmp/md.6.et" | grep -q '"value":\[false,true\]' || bad "MD fwd dims"
node layer_64_2_mlp1_wg_ALLREDUCE "$tmp/md.6.et" | grep -q '"value":\[true,false\]' || bad "MD wg dims"
grep -q '"1": \[0, 1, 2, 3\]' "$tmp/dm.comm_groups.json" || bad "DM groups"
grep -q '"1": \[0, 4, 8, 12\]' "$tmp/md.comm_groups.json" || bad "MD groups"
cmp -s "$tmp/dm.6.et" "$tmp/md.6.et" && bad "DM and MD are the same"

# Transformer at 64 NPUs on 8x8: model group 4 splits dim 0; data groups
# stride 4 (16 ranks each). -g names the group file.
"$exe" convert text "$wl/Transformer_HybridParallel.txt" --npus 64 --dims 8x8 -g "$tmp/tg.json" \
	-o "$tmp/t" || bad "transformer 64"
grep -q '"17": \[0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60\]' "$tmp/tg.json" ||
	bad "transformer data group"
grep -q '"16": \[60, 61, 62, 63\]' "$tmp/tg.json" || bad "transformer model group"
[ -e "$tmp/t.comm_groups.json" ] && bad "-g ignored"
node Q1_wg_ALLREDUCE "$tmp/t.63.et" | grep -q '"name":"pg_name","kind":"string","value":"20"' ||
	bad "rank 63 data group"

# --strong-scaling: 4 data-parallel replicas at 16 NPUs (model group 4) share
# the batch: compute and activation collectives / 4, weight gradients and
# the update as written.
"$exe" convert text "$wl/Transformer_HybridParallel.txt" --npus 16 --strong-scaling -o "$tmp/ss" ||
	bad "strong scaling"
node Q1_fwd "$tmp/ss.0.et" | grep -q '"duration_nanos","kind":"uint64","value":786432}' || bad "ss compute"
node Concat1_fwd_ALLREDUCE "$tmp/ss.0.et" | grep -q '"comm_size","kind":"int64","value":2097152}' ||
	bad "ss activation size"
node Q1_wg_ALLREDUCE "$tmp/ss.0.et" | grep -q '"comm_size","kind":"int64","value":33554432}' ||
	bad "ss weight size"
node Q1_update "$tmp/ss.0.et" | grep -q '"duration_nanos","kind":"uint64","value":10}' || bad "ss update"

# Passes: the next forward of a layer waits for its weight update.
"$exe" convert text "$wl/MLP_ModelParallel.txt" --npus 4 --passes 2 -o "$tmp/p" || bad "passes"
n=$("$exe" jsonize "$tmp/p.0.et" | grep -c '"id":')
[ "$n" -eq 70 ] || bad "2 passes: $n nodes, want 70"
u=$(node p0.layer_64_1_mlp0_update "$tmp/p.0.et" | sed 's/.*"id":\([0-9]*\),.*/\1/')
node p1.layer_64_1_mlp0_fwd "$tmp/p.0.et" | grep -q "\"data_deps\":\[[0-9,]*$u[],]" ||
	bad "pass 1 forward does not wait for update $u"
# MICRO: every pass's collective at once, no compute.
"$exe" convert text "$wl/microAllReduce.txt" --npus 8 --passes 3 -o "$tmp/m" || bad "micro"
[ "$("$exe" jsonize "$tmp/m.0.et" | grep -c '"type":"COMM_COLL_NODE","ctrl_deps":\[\],"data_deps":\[\]')" -eq 3 ] ||
	bad "micro passes"

# Nothing overwritten unasked; --force replaces.
"$exe" convert text "$wl/MLP_ModelParallel.txt" --npus 16 -o "$tmp/mp" 2>"$tmp/err"
[ $? -eq 1 ] || bad "overwrote without --force"
grep -q "exists; use -f (--force)" "$tmp/err" || bad "no exists message"
"$exe" convert text "$wl/MLP_ModelParallel.txt" --npus 16 -o "$tmp/mp" --force || bad "--force"

# Bad inputs: FILE:LINE: what, exit 1.
expect() { # expect FILE-CONTENT MESSAGE-PATTERN [NPUS]
	printf "$1" > "$tmp/bad.txt"
	"$exe" convert text "$tmp/bad.txt" --npus "${3:-4}" -o "$tmp/bad" -f 2>"$tmp/err"
	st=$?
	[ $st -eq 1 ] || bad "exit $st for: $1"
	grep -q -- "$2" "$tmp/err" || { bad "message for: $1"; cat "$tmp/err"; }
}
expect 'PIPELINE\n1\n' "bad.txt:1: unknown parallelism type 'PIPELINE'"
expect 'DATA\nsix\n' "bad.txt:2: expected the number of layers"
expect 'DATA\n2\nl0 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 8 5\n' "bad.txt:3: file ends after 1 of the 2 layers"
expect 'DATA\n1\nl0 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 8\n' "bad.txt:3: a DATA layer line has 12 fields"
expect 'DATA\n1\nl0 -1 5x NONE 0 5 NONE 0 5 ALLREDUCE 8 5\n' "bad.txt:3: field 3 (forward compute) '5x'"
expect 'DATA\n1\nl0 -1 5 NONE 0 5 NONE 0 5 ALLREDOOCE 8 5\n' "bad.txt:3: field 10 (weight-grad comm type) 'ALLREDOOCE'"
expect 'DATA\n1\nl0 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 8 5\nl1 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 8 5\n' "bad.txt:4: extra line"
expect 'HYBRID_TRANSFORMER\n1\nl0 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 8 5\n' "bad.txt:1: HYBRID_TRANSFORMER needs 'model_parallel_NPU_group: N'"
expect 'HYBRID_TRANSFORMER model_parallel_NPU_group: 3\n1\nl0 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 8 5\n' "model_parallel_NPU_group 3 must divide --npus 4"
expect 'HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 checkpoints: 1 0 checkpoint_initiates: 1 7\n1\nl0 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 8 5\n' "bad.txt:1: 'checkpoint_initiates:' layer 7 is outside 0..0"
expect 'HYBRID_DLRM\n2\nl0 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 8 5\nl1 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 8 5\n' "bad.txt:1: HYBRID_DLRM needs the index of the last bottom-MLP layer"
expect 'HYBRID_CUSTOMIZED\n1\nl0 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 8 5 PIPE\n' "bad.txt:3: field 13 (layer parallelism) 'PIPE'"
expect 'DATA extra\n1\nl0 -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 8 5\n' "bad.txt:1: unexpected 'extra'"
expect '' "bad.txt:0: empty file"
# A forward collective under DATA spans no dimension: a note, not silence.
printf 'DATA\n1\nl0 -1 5 ALLGATHER 64 5 NONE 0 5 ALLREDUCE 8 5\n' > "$tmp/note.txt"
"$exe" convert text "$tmp/note.txt" --npus 4 -o "$tmp/note" 2>"$tmp/err" || bad "note run"
grep -q "note.txt:3: note: layer l0: fwd ALLGATHER under DATA spans no network dimension" "$tmp/err" ||
	bad "no note"
# Too many passes fails at once, before using memory, and writes nothing.
"$exe" convert text "$wl/Resnet50_DataParallel.txt" --npus 4 --passes 1000000 -o "$tmp/big" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "more than 5000000 nodes per rank" "$tmp/err" || bad "passes cap"
[ -e "$tmp/big.0.et" ] && bad "partial output after the passes cap"
# Usage errors: exit 2.
"$exe" convert text "$wl/DLRM_HybridParallel.txt" --npus 4 -o - 2>/dev/null
[ $? -eq 2 ] || bad "-o - accepted" 
"$exe" convert text "$wl/DLRM_HybridParallel.txt" -o "$tmp/u" 2>/dev/null
[ $? -eq 2 ] || bad "missing --npus"
"$exe" convert text "$wl/DLRM_HybridParallel.txt" --npus 16 --dims 4x2 -o "$tmp/u" 2>/dev/null
[ $? -eq 2 ] || bad "--dims product"
"$exe" convert text "$tmp/missing.txt" --npus 4 -o "$tmp/u" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "missing.txt: no such file or directory" "$tmp/err" || bad "missing input"
exit $fail
