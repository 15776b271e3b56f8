#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerate the seeds of tests/fuzz/corpus/convert_pytorch and
convert_kineto (run from the repository root): small pieces of the real
traces in tests/data, each under 8 KB (ci-fuzz.sh's -max_len), keeping the
constructs the converters care about (schemas 1.0.1 and 1.0.2+, collectives
in both record_param_comms layouts, process-group tables; launches, NCCL
kernels, cuda_sync rows, flows, annotations, float timestamps)."""
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


def kineto_seed(path, pick, name):
    d = load(path)
    out = {k: v for k, v in d.items() if k not in ("traceEvents", "deviceProperties", "INFO")}
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
