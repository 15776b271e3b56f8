#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerate the seeds of tests/fuzz/corpus/convert_pytorch and
convert_kineto (run from the repository root): small pieces of the real
traces in tests/data, each under 8 KB (ci-fuzz.sh's -max_len), keeping the
constructs the converters care about (schemas 1.0.1 and 1.0.2+, collectives
in both record_param_comms layouts, process-group tables; launches, NCCL
kernels, cuda_sync rows, flows, annotations, float timestamps; ROCm/HIP,
MTIA, older categories, gloo collectives, counters, large integers, Triton;
a linked ET, from `chakra link`'s output named by CHAKRA_LINKED:

    chakra link --et tests/data/pytorch/hta-simple-add/benchmark_simple_add_et.json.gz \
        --kineto tests/data/pytorch/hta-simple-add/benchmark_simple_add_trace.json.gz -o /tmp/l.json
    CHAKRA_LINKED=/tmp/l.json python3 tests/fuzz/make_convert_seeds.py
)."""
import gzip
import json
import os

SHARED = os.environ.get("CHAKRA_SHARED", "tests")
D = SHARED + "/data"


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)


def write(folder, name, obj):
    os.makedirs(folder, exist_ok=True)
    text = json.dumps(obj, separators=(",", ":"))
    assert len(text) <= 8192, (name, len(text))
    with open(os.path.join(folder, name), "w") as f:
        f.write(text)


def et_seed(path, keep, name, strip_schema=False):
    d = load(path)
    nodes = [n for n in d["nodes"] if keep(n)]
    if strip_schema:
        for n in nodes:
            for a in n.get("attrs", []):
                if a["name"] == "op_schema" and a["value"]:
                    a["value"] = "x"
            if n.get("op_schema"):
                n["op_schema"] = "x"
    out = {k: v for k, v in d.items() if k != "nodes"}
    out["nodes"] = nodes
    write("tests/fuzz/corpus/convert_pytorch", name, out)


def kineto_seed(path, pick, name, top=None):
    d = load(path)
    out = {k: v for k, v in d.items() if k not in ("traceEvents", "deviceProperties", "INFO")}
    if top:
        top(out)
    out["traceEvents"] = pick(d["traceEvents"])
    write("tests/fuzz/corpus/convert_kineto", name, out)


# 1.0.2: process_group:init, an all_gather (layout B) and its wait
ag = D + "/pytorch/chakra-allgather/1.0.2-chakra.0.0.4.json"
et_seed(ag, lambda n: n["id"] in (1, 2, 3, 24, 25, 27, 30, 31, 40, 41), "allgather-1.0.2.json", True)
# 1.0.1 flat layout, labels, tensors recycled
se = D + "/pytorch/hta-simple-add/benchmark_simple_add_et.json.gz"
et_seed(se, lambda n: n["id"] in (1, 2, 3, 4, 5, 8, 14, 15, 35, 36), "simple-add-1.0.1.json", True)
# 1.0.3: record_param_comms layout C (pg name tuple), a broadcast and its wait
rn = D + "/pytorch/param-resnet50-ddp/resnet_1gpu_et.json.gz"
et_seed(rn, lambda n: n["id"] in (1, 2, 3, 5, 6, 435, 436, 603), "resnet-1.0.3.json", True)

# Kineto: event sync on one stream (cuda_sync rows, memcpy, ProfilerStep)
es = D + "/kineto/hta-critical-path/cuda_event_sync/event_sync_trace.json.gz"
kineto_seed(es, lambda ev: [e for e in ev if e.get("ph") in ("X", "s", "f")][:40], "event-sync.json")
# several streams, stream wait event
em = D + "/kineto/hta-critical-path/cuda_event_sync_multi_stream/event_sync_trace.json.gz"
kineto_seed(em, lambda ev: [e for e in ev if e.get("ph") == "X" and e.get("cat") not in ("Trace", "cpu_op")][:38],
            "multi-stream.json")


# NCCL: one broadcast launched from record_param_comms, float timestamps
def nccl(ev):
    x = [e for e in ev if e.get("ph") == "X"]
    rpc = [e for e in x if e["name"] == "record_param_comms" and e["args"].get("Collective name") == "broadcast"][0]
    t0, t1 = rpc["ts"], rpc["ts"] + rpc["dur"]
    inside = [e for e in x if e.get("tid") == rpc["tid"] and t0 <= e["ts"] <= t1]
    corr = {e["args"].get("correlation") for e in inside if e.get("cat") == "cuda_runtime"}
    dev = [e for e in x if e.get("cat") == "kernel" and e["args"].get("correlation") in corr]
    for e in dev:
        e["args"] = {k: v for k, v in e["args"].items() if k not in ("grid", "block")}
    return inside + dev


kineto_seed(D + "/kineto/hta-nccl/nccl_data.json.gz", nccl, "nccl-broadcast.json")


# Two threads: forward ops with their fwdbwd flows to the backward ops on
# the autograd thread, the main thread idle meanwhile (cross-thread edges)
def fwdbwd(ev):
    x = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    fl = [e for e in ev if e.get("cat") == "fwdbwd"]
    s = {e["id"]: e for e in fl if e["ph"] == "s"}
    f = {e["id"]: e for e in fl if e["ph"] == "f"}
    ids = sorted(i for i in s if i in f)[:5]
    keep = []
    for i in ids:
        for end in (s[i], f[i]):
            keep.append(end)
            op = [e for e in x if e["tid"] == end["tid"] and e["ts"] == end["ts"]][:1]
            for e in op:
                e["args"] = {k: v for k, v in e.get("args", {}).items() if k in ("External id", "Sequence number")}
            keep += op
    # the main thread resuming after the backward pass
    main = keep[1]["tid"]
    last = max(e["ts"] for e in keep if e.get("ph") == "X")
    after = [e for e in x if e["tid"] == main and e["ts"] > last + 1000][:1]
    for e in after:
        e["args"] = {}
    return keep + after


kineto_seed(D + "/kineto/hta-nccl/nccl_data.json.gz", fwdbwd, "fwdbwd.json")


# Two occurrences of the annotation that marks an iteration (--to-next)
def zero_grad(ev):
    name = "Optimizer.zero_grad#SGD.zero_grad"
    z = sorted((e for e in ev if e.get("name") == name and e.get("cat") == "user_annotation"),
               key=lambda e: e["ts"])[:2]
    t0, t1 = z[0]["ts"], z[1]["ts"]
    x = [e for e in ev if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "cuda_runtime")
         and t0 <= e["ts"] < t1 and e.get("dur", 0) > 0][:24]
    corr = {e["args"].get("correlation") for e in x if e.get("cat") == "cuda_runtime"}
    dev = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel"
           and e["args"].get("correlation") in corr]
    for e in x + dev:
        e["args"] = {k: v for k, v in e.get("args", {}).items()
                     if k in ("correlation", "stream", "device", "External id")}
    return z + x + dev


kineto_seed(D + "/pytorch/param-linear/linear_kineto.json.gz", zero_grad, "zero-grad.json")


def slim(events, keep=("correlation", "stream", "device", "External id", "stream_id", "external id")):
    for e in events:
        if "args" in e:
            e["args"] = {k: v for k, v in e["args"].items() if k in keep}
    return events


# ROCm/HIP: hipLaunchKernel, hipExtModuleLaunchKernel, hipMemcpyWithStream
# and their kernels and copies, in ProfilerStep#1
def hip(ev):
    step = [e for e in ev if e.get("name") == "ProfilerStep#1"][0]
    t0, t1 = step["ts"], step["ts"] + step["dur"]
    host = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "cuda_runtime" and t0 <= e["ts"] < t1]
    corr = {e["args"].get("correlation") for e in host}
    dev = [e for e in ev if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy")
           and e["args"].get("correlation") in corr]
    for e in dev:
        e["name"] = e["name"][:40]
    return [step] + slim(host + dev)


kineto_seed(D + "/kineto/hta-amd/mi250_minitoy_train_ROCm6_2_kineto.json.gz", hip, "amd-hip.json")


# MTIA: runtime calls and the device (ccp) events they correlate with
def mtia(ev):
    dev = [e for e in ev if e.get("cat") == "mtia_ccp_events" and "correlation" in e.get("args", {})]
    corr = {e["args"]["correlation"] for e in dev}
    host = [e for e in ev if e.get("cat") == "mtia_runtime" and e["args"].get("correlation") in corr]
    names, pick = set(), []
    for e in host:  # one of each kind of call, with its device events
        if e["name"] not in names and len(pick) < 8:
            names.add(e["name"])
            pick.append(e)
    want = {e["args"]["correlation"] for e in pick}
    return slim(pick + [e for e in dev if e["args"]["correlation"] in want][:12])


kineto_seed(D + "/kineto/hta-mtia/mtia_inference_rank_0.json.gz", mtia, "mtia.json")
# an older profiler's categories (Runtime, Kernel, "external id"), whole
kineto_seed(D + "/kineto/hta-old-categories/inference_rank_1.json.gz",
            lambda ev: [e for e in ev if e.get("ph") != "M"], "old-categories.json")


# gloo collectives on a CPU-only rank: Input type / Input Dims give the size
def gloo(ev):
    x = [e for e in ev if e.get("ph") == "X" and e.get("cat") in ("user_annotation", "cpu_op")]
    for e in x:
        e["args"] = {k: v for k, v in e.get("args", {}).items() if k in ("External id", "Input type", "Input Dims")}
    return x


def small_groups(out):
    # the process-group table as written (a Python repr in a string), with
    # two groups of four ranks instead of ten of up to 300
    out["distributedInfo"]["world_size"] = 4
    out["distributedInfo"]["pg_config"] = str([
        {"pg_name": str(i), "pg_desc": d, "backend_config": "cpu:gloo,cuda:gloo", "pg_size": 4,
         "ranks": [0, 1, 2, 3]} for i, d in ((0, "default_pg"), (1, "undefined"))])
    out["distributedInfo"]["pg_count"] = 2
    out["distributedInfo"]["rank"] = 2


kineto_seed(D + "/kineto/hta-cpu-only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", gloo, "gloo.json",
            small_groups)
# an integer beyond 2^53 in an argument, whole
kineto_seed(D + "/kineto/hta-large-integer/rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz",
            lambda ev: ev, "large-integer.json")
# counter events among the work (tests/corpus/add_counters.py)
def counters(ev):
    x = slim([e for e in ev if e.get("ph") == "X" and e.get("cat") != "Trace"][:28])
    for e in x:
        e["name"] = e["name"][:40]
    return x + [e for e in ev if e.get("ph") == "C"]


kineto_seed(D + "/kineto/hta-counters/event_sync_with_counters.json.gz", counters, "counters.json")
# Triton: a kernel launched through the driver (cuda_driver cuLaunchKernel)
kineto_seed(D + "/kineto/hta-triton/triton_example.json.gz",
            lambda ev: slim([e for e in ev if e.get("ph") in ("X", "s", "f") and e.get("cat") != "Trace"]),
            "triton.json")


# A linked ET (chakra_trace_link's format: the GPU kernels as nodes, with
# cat, ts, inclusive_dur, stream, device and correlation), written by
# `chakra link` from the hta-simple-add pair; CHAKRA_LINKED names that file
def linked():
    path = os.environ.get("CHAKRA_LINKED")
    if not path:
        return
    d = load(path)
    byid = {n["id"]: n for n in d["nodes"]}

    # the device nodes (a "cat" other than a host op's), the host ops above
    # them (a 1.0.1 host op names its parent in "parent", a 1.0.2+ one and
    # a device node in "ctrl_deps"), and the roots
    keep = set()
    for n in d["nodes"]:
        if n.get("cat") not in (None, "cpu_op", "user_annotation"):
            m = n
            while m and m["id"] not in keep:
                keep.add(m["id"])
                m = byid.get(m.get("parent", m.get("ctrl_deps")))
    nodes = [n for n in d["nodes"] if n["id"] in keep]
    for n in nodes:
        n["name"] = n["name"][:40]
        if n.get("op_schema"):
            n["op_schema"] = "x"
        for k in ("inputs", "outputs"):
            if isinstance(n.get(k), dict):
                n[k] = {"values": n[k]["values"][:1], "shapes": n[k]["shapes"][:1], "types": n[k]["types"][:1]}
        n["attrs"] = [a for a in n.get("attrs", []) if a["name"] != "op_schema"]
    d["nodes"] = nodes
    write("tests/fuzz/corpus/convert_pytorch", "linked-simple-add.json", d)


linked()
# Triton kernels in a PyTorch 2 ET (schema 1.1.1)
# (ProfilerStep#5: the Triton kernel and the mm beside it, under their compiled region)
et_seed(D + "/pytorch/param-pt2/pt2_et.json.gz", lambda n: n["id"] not in (19, 20, 21, 22, 23, 24, 25, 26, 29),
        "pt2-triton-1.1.1.json", True)
