#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Adds counter events to a Kineto trace, as the tools that write them do:

- HolisticTraceAnalysis's generate_trace_with_counters: per stream, a
  "Queue Length" series (+1 when a runtime call enqueues work, -1 when that
  work starts; it goes negative when the work began before its launch was
  traced) and per memory-copy kind a bandwidth series ("Memcpy DtoH" ...),
  "ph": "C" events with an integer pid and an "id";
- Kineto's hardware counters: "ph": "C", cat "hardware_counters", pid the
  string "GPU N Counters", ts with three decimals, one value under "".

    add_counters.py IN OUT

Used to make tests/data/kineto/hta-counters (tests/data/SOURCES.md): the
converter must skip counters, so the trace converts as it did without them.
"""
import gzip
import json
import sys


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)


def main(src, dst):
    trace = load(src)
    events = trace["traceEvents"]
    launch = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "cuda_runtime":
            launch[e.get("args", {}).get("correlation")] = e
    changes = []  # (ts, pid, stream, +1/-1)
    added = []
    for e in events:
        a = e.get("args", {})
        if e.get("ph") != "X" or e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset"):
            continue
        call = launch.get(a.get("correlation"))
        if call is None:
            continue
        changes.append((call["ts"], e["pid"], a["stream"], 1))
        changes.append((e["ts"], e["pid"], a["stream"], -1))
        if e["cat"] == "gpu_memcpy" and e.get("dur"):
            kind = "Memcpy " + e["name"].split()[1]
            gbps = a.get("bytes", 0) / (e["dur"] * 1e3)
            added.append({"ph": "C", "name": kind, "pid": e["pid"], "ts": e["ts"],
                          "args": {"Memcpy BW": gbps}})
            added.append({"ph": "C", "name": kind, "pid": e["pid"], "ts": e["ts"] + e["dur"],
                          "args": {"Memcpy BW": 0}})
        if e["cat"] == "kernel":
            ns = int(round(e["ts"] * 1000))
            added.append({"ph": "C", "cat": "hardware_counters",
                          "name": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                          "pid": "GPU %d Counters" % e["pid"], "tid": a["stream"],
                          "ts": float("%d.%03d" % (ns // 1000, ns % 1000)),
                          "args": {"": 42.5}})
    depth = {}
    for ts, pid, stream, d in sorted(changes, key=lambda c: c[0]):
        depth[stream] = depth.get(stream, 0) + d
        added.append({"ph": "C", "name": "Queue Length", "pid": pid, "ts": ts, "id": stream,
                      "args": {"Queue Length": depth[stream]}})
    trace["traceEvents"] = events + added
    with gzip.GzipFile(dst, "wb", mtime=0) as f:
        f.write(json.dumps(trace).encode())
    print("%s: %d counter events added" % (dst, len(added)))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: add_counters.py IN OUT")
    main(sys.argv[1], sys.argv[2])
