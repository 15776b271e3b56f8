#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Chakra's own commands run by the chakra binary under their names
# (tools/compat.c): chakra_trace_link + chakra_converter PyTorch on the
# ResNet-50 ET and HTA's Kineto trace give an ET that validates, holds the
# kernels (more nodes than the ET alone) and equals `chakra convert pytorch
# --et --kineto`; chakra_converter Text, chakra_jsonizer, chakra_visualizer,
# chakra_timeline_visualizer and chakra_generator write upstream's file
# names (the generator's bytes are upstream's, tests/data/chakra/generator);
# outputs are replaced, leaving no temporary behind; errors and usage.
set -u
exe=${CHAKRA_EXE:?}
data=${CHAKRA_SHARED:?}/data
. "$(dirname "$0")/../need.sh" && need_data data/pytorch/param-resnet50-ddp data/kineto/hta-nccl \
	data/chakra/generator data/astra-sim/text_workloads
tmp=$(mktemp -d /tmp/chakra-compat-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
bin=$tmp/bin
mkdir -p "$bin" "$tmp/w"
for n in chakra_converter chakra_trace_link chakra_jsonizer chakra_visualizer \
	chakra_timeline_visualizer chakra_generator; do
	ln -s "$exe" "$bin/$n"
done
cd "$tmp/w" || exit 1
et=$data/pytorch/param-resnet50-ddp/resnet_1gpu_et.json.gz
k=$data/kineto/hta-nccl/nccl_data.json.gz

# the linker and the converter, as Chakra's users call them
"$bin/chakra_trace_link" --rank 0 --chakra-host-trace "$et" --chakra-device-trace "$k" \
	--output-file linked.json 2>e || { say "chakra_trace_link"; cat e; }
grep -q '"cat":"kernel"' linked.json || say "the linked ET has no kernel nodes"
"$bin/chakra_converter" PyTorch --input linked.json --output linked.et 2>e ||
	{ say "chakra_converter PyTorch"; cat e; }
"$exe" validate linked.et >v 2>&1 || { say "the converted linked ET does not validate"; cat v; }
"$exe" convert pytorch --et "$et" -o host.et -q || say "convert the ET alone"
n_linked=$("$exe" jsonize linked.et | grep -c '"id":')
n_host=$("$exe" jsonize host.et | grep -c '"id":')
gpu=$("$exe" jsonize linked.et | grep -c '"name":"is_cpu_op","kind":"bool","value":false')
[ "$n_linked" -gt "$n_host" ] || say "linked ET: $n_linked nodes, the ET alone $n_host"
[ "$gpu" = 3774 ] || say "linked ET: $gpu device ops, expected HTA's 3774 kernels, copies and memsets"
"$exe" convert pytorch --et "$et" --kineto "$k" -o direct.et -q || say "convert --et --kineto"
cmp -s linked.et direct.et || say "chakra_trace_link + chakra_converter differ from convert --et --kineto"
"$exe" convert PyTorch --input linked.json --output again.et 2>/dev/null || say "chakra convert PyTorch"
cmp -s linked.et again.et || say "chakra convert PyTorch differs from chakra_converter PyTorch"
# --simulate replays the output
"$bin/chakra_converter" PyTorch --input linked.json --output sim.et --simulate >s 2>/dev/null ||
	say "chakra_converter PyTorch --simulate"
grep -q '^iteration' s || say "--simulate printed no replay"
# rank check: the Kineto trace says rank 0
"$bin/chakra_trace_link" --rank 3 --chakra-host-trace "$et" --chakra-device-trace "$k" \
	--output-file r3.json 2>e && say "--rank 3 on a rank-0 trace accepted"
grep -q "is of rank 0, not 3" e || { say "--rank mismatch message"; cat e; }
[ -e r3.json ] && say "a refused link left its output"

# replaced as Chakra replaces it: the output exists, no temporary is left
printf 'old' >linked.et
"$bin/chakra_converter" PyTorch --input linked.json --output linked.et 2>/dev/null ||
	say "chakra_converter over an existing output"
cmp -s linked.et direct.et || say "the existing output was not replaced"
ls | grep -q 'tmp-' && say "a temporary file was left: $(ls | grep tmp-)"

# Text: PREFIX.R.et, as Chakra names them (no group file)
"$bin/chakra_converter" Text --input "$data/astra-sim/text_workloads/MLP_ModelParallel.txt" \
	--output mlp --num-npus 4 --num-passes 2 2>e || { say "chakra_converter Text"; cat e; }
for r in 0 1 2 3; do [ -f "mlp.$r.et" ] || say "chakra_converter Text wrote no mlp.$r.et"; done
[ -e mlp.4.et ] && say "chakra_converter Text wrote a fifth NPU"
[ -e mlp.comm_groups.json ] && say "chakra_converter Text wrote a group file Chakra does not"
"$exe" convert text "$data/astra-sim/text_workloads/MLP_ModelParallel.txt" --npus 4 --passes 2 \
	-o ours --no-groups 2>/dev/null
cmp -s mlp.0.et ours.0.et || say "chakra_converter Text differs from chakra convert text"

# jsonizer: protobuf's JSON mapping
"$bin/chakra_jsonizer" --input_filename mlp.0.et --output_filename mlp.json || say "chakra_jsonizer"
"$exe" jsonize --protobuf-json mlp.0.et >mlp.ref
cmp -s mlp.json mlp.ref || say "chakra_jsonizer differs from jsonize --protobuf-json"

# visualizer: the format from the extension
"$bin/chakra_visualizer" --input_filename mlp.0.et --output_filename g.dot || say "chakra_visualizer dot"
grep -q '^digraph' g.dot || say "chakra_visualizer: g.dot is not DOT"
"$bin/chakra_visualizer" --input_filename mlp.0.et --output_filename g.graphml ||
	say "chakra_visualizer graphml"
grep -q '<graphml' g.graphml || say "chakra_visualizer: g.graphml is not GraphML"

# timeline visualizer: --npu_frequency in MHz
printf 'issue,npu_id=0,cycle=1000,node_id=1,node_name=a\ncallback,npu_id=0,cycle=3000,node_id=1,node_name=a\n' >ev.csv
"$bin/chakra_timeline_visualizer" --input_filename ev.csv --output_filename tl.json \
	--num_npus 1 --npu_frequency 1000 || say "chakra_timeline_visualizer"
grep -q '"dur":2' tl.json || { say "chakra_timeline_visualizer: 2000 cycles at 1000 MHz is not 2 us"; cat tl.json; }

# generator: upstream's files, byte for byte
mkdir gen && (cd gen && "$bin/chakra_generator" --num_npus 2 2>/dev/null) || say "chakra_generator"
n=0
for f in "$data"/chakra/generator/*.et; do
	n=$((n + 1))
	cmp -s "$f" "gen/$(basename "$f")" || say "chakra_generator: $(basename "$f") differs from Chakra's"
done
[ "$n" = 28 ] || say "expected 28 reference files, found $n"
[ "$(ls gen | wc -l)" = 28 ] || say "chakra_generator wrote $(ls gen | wc -l) files, not 28"

# errors and usage
"$bin/chakra_converter" PyTorch --output x.et 2>e
[ $? = 2 ] || say "missing --input: exit status"
grep -q "the following argument is required: --input" e || { say "missing --input message"; cat e; }
"$bin/chakra_converter" Onnx --input a 2>e
[ $? = 2 ] || say "unknown converter: exit status"
grep -q "invalid choice: 'Onnx'" e || { say "unknown converter message"; cat e; }
"$bin/chakra_jsonizer" --input_filename nonexistent.et --output_filename o.json 2>e
[ $? = 1 ] || say "missing input: exit status"
grep -q "nonexistent.et" e || { say "missing input: message does not name the file"; cat e; }
[ -e o.json ] && say "a failed jsonize left its output"
"$bin/chakra_trace_link" --rank 0 --chakra-host-trace "$et" --chakra-device-trace "$k" 2>e
[ $? = 2 ] || say "missing --output-file: exit status"
"$bin/chakra_generator" --help | grep -q '^usage: chakra_generator ' || say "chakra_generator --help"
[ "$fail" = 0 ] && echo "Chakra's commands: all checks passed"
exit $fail
