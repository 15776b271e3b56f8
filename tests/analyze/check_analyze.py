#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Independent checks of `chakra stats`, `chakra visualize` and `chakra timeline`.

The trace is decoded here from the raw protobuf bytes (no libchakra), the
longest paths are computed by a memoised depth-first search (the tool uses
Kahn's order), and the tools' outputs are compared with the results.
Usage: check_analyze.py stats|visualize|timeline (env: CHAKRA_EXE, CHAKRA_SHARED).
"""
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter, deque

EXE = os.environ["CHAKRA_EXE"]
TRACE = os.path.join(os.environ["CHAKRA_SHARED"], "data/chakra/chakra.0.et.gz")
if not os.path.exists(TRACE):  # sources without tests/data: skip (meson's 77)
    print("SKIP: test input %s is absent (tests/data/SOURCES.md)" % TRACE)
    sys.exit(77)
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what, file=sys.stderr)


# ---- a minimal protobuf reader for the Chakra ET fields used here ----

def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
        elif w == 1:
            v = int.from_bytes(b[i:i + 8], "little")
            i += 8
        elif w == 5:
            v = int.from_bytes(b[i:i + 4], "little")
            i += 4
        else:
            raise ValueError("wire type %d" % w)
        yield f, w, v


def packed(w, v):
    if w == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def load(path):
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    msgs, i = [], 0
    while i < len(data):
        n, i = varint(data, i)
        msgs.append(data[i:i + n])
        i += n
    nodes = []
    for m in msgs[1:]:
        nd = {"id": 0, "type": 0, "dur": 0, "data": [], "ctrl": [], "attr": {}}
        for f, w, v in fields(m):
            if f == 1:
                nd["id"] = v
            elif f == 3:
                nd["type"] = v
            elif f == 4:
                nd["ctrl"] += packed(w, v)
            elif f == 5:
                nd["data"] += packed(w, v)
            elif f == 7:
                nd["dur"] = v
            elif f == 10:
                name, val = None, None
                for af, aw, av in fields(v):
                    if af == 1:
                        name = av.decode()
                    elif aw == 0 and af in (7, 9, 11, 13, 27):
                        val = av - (1 << 64) if af in (7, 9) and av >= 1 << 63 else av
                if name is not None and name not in nd["attr"]:
                    nd["attr"][name] = val
        nodes.append(nd)
    return nodes


# ---- stats ----

def longest_paths(nodes, kinds):
    """dist/depth per id by memoised DFS; ids on or behind a cycle are 'bad'."""
    by_id = {}
    for nd in nodes:
        by_id.setdefault(nd["id"], nd)
    parents = {}
    for nd in nodes:
        if nd["id"] in parents:
            continue
        ps = []
        for k in kinds:
            ps += [p for p in nd[k] if p != nd["id"] and p in by_id]
        parents[nd["id"]] = ps
    dist, depth, bad, state = {}, {}, set(), {}
    for root in parents:
        if root in state:
            continue
        stack = [(root, 0)]
        state[root] = 1
        while stack:
            v, k = stack[-1]
            ps = parents[v]
            if k < len(ps):
                stack[-1] = (v, k + 1)
                p = ps[k]
                if state.get(p) == 1:
                    bad.add(v)
                elif p not in state:
                    state[p] = 1
                    stack.append((p, 0))
                continue
            stack.pop()
            state[v] = 2
            if v in bad or any(p in bad for p in ps):
                bad.add(v)
                continue
            dist[v] = by_id[v]["dur"] + max((dist[p] for p in ps), default=0)
            depth[v] = 1 + max((depth[p] for p in ps), default=0)
    return dist, depth, bad, parents, by_id


def stats_of(exe_args):
    out = subprocess.run([EXE, "stats", "--json"] + exe_args, check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    return json.loads(out)


def check_stats():
    nodes = load(TRACE)
    check(len(nodes) == 3664, "3664 nodes")
    for deps, kinds in (("data", ["data"]), ("ctrl", ["ctrl"]), ("both", ["data", "ctrl"])):
        js = stats_of([TRACE, "--deps", deps])
        dist, depth, bad, parents, by_id = longest_paths(nodes, kinds)
        check(js["nodes"] == len(nodes), "nodes")
        types = Counter(n["type"] for n in nodes)
        names = {4: "COMP_NODE", 7: "COMM_COLL_NODE"}
        check({k: v["count"] for k, v in js["node_types"].items()} ==
              {names[t]: c for t, c in types.items()}, "type counts")
        check(js["duration_micros"]["total"] == sum(n["dur"] for n in nodes), "total duration")
        cpu = sum(n["dur"] for n in nodes if n["attr"].get("is_cpu_op") == 1)
        gpu = sum(n["dur"] for n in nodes if n["attr"].get("is_cpu_op") == 0)
        check(js["duration_micros"]["cpu"] == cpu and js["duration_micros"]["gpu"] == gpu,
              "cpu/gpu duration")
        coll = Counter()
        size = Counter()
        for n in nodes:
            if n["type"] == 7:
                ct = n["attr"].get("comm_type")
                nm = {0: "ALL_REDUCE", 5: "BROADCAST"}.get(ct, "NO_COMM_TYPE")
                coll[nm] += 1
                size[nm] += n["attr"].get("comm_size") or 0
        check({k: v["count"] for k, v in js["collectives"].items()} == dict(coll), "collectives")
        check({k: v["bytes"] for k, v in js["collectives"].items()} == dict(size), "coll bytes")
        crit = max(dist.values())
        check(js["critical_path"]["duration_micros"] == crit,
              "%s: critical path %d, independent %d" %
              (deps, js["critical_path"]["duration_micros"], crit))
        check(js["depth"] == max(depth.values()), "%s: depth" % deps)
        check(js["width"] == max(Counter(depth.values()).values()), "%s: width" % deps)
        check(js["warnings"]["cycle_nodes"] == len(bad),
              "%s: cycle nodes %d vs %d" % (deps, js["warnings"]["cycle_nodes"], len(bad)))
        # The listed path is a real path whose durations add up to its length.
        path = js["critical_path"]["nodes"]
        check(sum(by_id[i]["dur"] for i in path) == crit, "%s: path durations" % deps)
        check(all(path[k] in parents[path[k + 1]] for k in range(len(path) - 1)),
              "%s: path edges" % deps)
        check(dist[path[0]] == by_id[path[0]]["dur"], "%s: path starts at a source" % deps)
        print("stats --deps %s: critical path %d us over %d nodes, depth %d, width %d, "
              "cycle nodes %d: matches" % (deps, crit, len(path), js["depth"], js["width"],
                                           len(bad)))


# ---- visualize ----

def dot_edges(path):
    edges, verts = [], set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"  n(\d+) -> n(\d+)( \[style=dashed\])?;$", line)
        if m:
            edges.append((int(m.group(1)), int(m.group(2)), "ctrl" if m.group(3) else "data"))
        m = re.match(r"  n(\d+) \[", line)
        if m:
            verts.add(int(m.group(1)))
    return verts, sorted(edges)


def expected_edges(nodes, window):
    seen, edges = set(), []
    for n in nodes:
        if n["id"] in window and n["id"] not in seen:
            seen.add(n["id"])
            for k in ("data", "ctrl"):
                edges += [(p, n["id"], k) for p in n[k] if p != n["id"] and p in window]
    ids = {n["id"] for n in nodes}
    return {i for i in window if i in ids}, sorted(e for e in edges if e[0] in ids)


def around(nodes, center, depth):
    adj = {}
    ids = {n["id"] for n in nodes}
    for n in nodes:
        for k in ("data", "ctrl"):
            for p in n[k]:
                if p in ids and p != n["id"]:
                    adj.setdefault(p, set()).add(n["id"])
                    adj.setdefault(n["id"], set()).add(p)
    dist = {center: 0}
    q = deque([center])
    while q:
        v = q.popleft()
        if dist[v] == depth:
            continue
        for u in adj.get(v, ()):
            if u not in dist:
                dist[u] = dist[v] + 1
                q.append(u)
    return set(dist)


def check_visualize():
    nodes = load(TRACE)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "w.dot")
        cases = [(["--range", "3248:3262"], set(range(3248, 3263))),
                 (["--range", "1640:1680"], set(range(1640, 1681))),
                 (["--range", "3380:3420"], set(range(3380, 3421))),
                 (["--around", "3256", "--depth", "1"], around(nodes, 3256, 1)),
                 (["--around", "3256", "--depth", "2"], around(nodes, 3256, 2))]
        for args, window in cases:
            subprocess.run([EXE, "visualize", TRACE, "-o", out] + args, check=True,
                           stderr=subprocess.DEVNULL)
            verts, edges = dot_edges(out)
            ev, ee = expected_edges(nodes, window)
            check(verts == ev, "%s: vertices %d vs %d" % (args, len(verts), len(ev)))
            check(edges == ee, "%s: edges %d vs %d" % (args, len(edges), len(ee)))
            # GraphML of the same cut: well-formed XML with the same graph.
            gml = os.path.join(d, "w.graphml")
            subprocess.run([EXE, "visualize", TRACE, "-o", gml, "--durations", "--sizes"] + args,
                           check=True, stderr=subprocess.DEVNULL)
            ns = "{http://graphml.graphdrawing.org/xmlns}"
            g = ET.parse(gml).getroot().find(ns + "graph")
            gverts = {int(v.get("id")[1:]) for v in g.findall(ns + "node")}
            gedges = sorted((int(e.get("source")[1:]), int(e.get("target")[1:]),
                             e.find(ns + "data").text) for e in g.findall(ns + "edge"))
            check(gverts == ev and gedges == ee, "%s: GraphML graph differs" % args)
            os.remove(gml)
            print("visualize %s: %d nodes, %d edges (%d ctrl): matches" %
                  (" ".join(args), len(verts), len(edges), sum(e[2] == "ctrl" for e in edges)))
            os.remove(out)


# ---- timeline ----

def check_timeline():
    ghz = 1.5
    lines, expect = [], []
    # NPU 0: nested and overlapping nodes; NPU 1: back to back; NPU 2: none.
    evs = [(0, 1, 0, 3000, 'fwd "conv" <1> & more, with commas'), (0, 2, 1500, 2000, "inner"),
           (0, 3, 2500, 6000, "overlap"), (0, 4, 6000, 6000, "zero"),
           (1, 1, 100, 400, "a"), (1, 2, 400, 900, "b\u00e9")]
    for npu, nid, s, e, name in evs:
        lines.append((s, 0, "issue,npu_id=%d,cycle=%d,node_id=%d,node_name=%s" % (npu, s, nid, name)))
        lines.append((e, 1, "callback,npu_id=%d,cycle=%d,node_id=%d,node_name=%s" % (npu, e, nid, name)))
        expect.append((npu, nid, s, e, name))
    lines.sort(key=lambda x: (x[0], x[1]))
    with tempfile.TemporaryDirectory() as d:
        csv = os.path.join(d, "ev.csv")
        out = os.path.join(d, "tl.json")
        with open(csv, "w", encoding="utf-8") as f:
            f.write("\n".join(l for _, _, l in lines) + "\n")
        subprocess.run([EXE, "timeline", csv, "--npus", "3", "--frequency", str(ghz), "-o", out],
                       check=True)
        js = json.load(open(out, encoding="utf-8"))
        evs_out = js["traceEvents"]
        for e in evs_out:
            for k in ("ph", "ts", "pid", "tid", "name"):
                check(k in e, "event field %s in %s" % (k, e))
        procs = [e for e in evs_out if e["ph"] == "M" and e["name"] == "process_name"]
        check(sorted(e["pid"] for e in procs) == [0, 1, 2], "one process per NPU")
        xs = [e for e in evs_out if e["ph"] == "X"]
        check(len(xs) == len(expect), "one complete event per node")
        got = sorted((e["pid"], e["args"]["node_id"], e["ts"], e["dur"], e["name"]) for e in xs)
        want = sorted((n, i, s / (ghz * 1e3), (e - s) / (ghz * 1e3), nm)
                      for n, i, s, e, nm in expect)
        for g, w in zip(got, want):
            check(g[:2] == w[:2] and g[4] == w[4] and abs(g[2] - w[2]) < 1e-6 and
                  abs(g[3] - w[3]) < 1e-6 and g[3] >= 0, "event %s vs %s" % (g, w))
        # Complete events on one thread must not partly overlap.
        by_thread = {}
        for e in xs:
            by_thread.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
        for k, spans in by_thread.items():
            spans.sort()
            check(all(spans[i][1] <= spans[i + 1][0] + 1e-9 for i in range(len(spans) - 1)),
                  "overlap on thread %s" % (k,))
        print("timeline: %d events, %d processes, %d threads: valid trace-event JSON" %
              (len(xs), len(procs), len(by_thread)))


{"stats": check_stats, "visualize": check_visualize, "timeline": check_timeline}[sys.argv[1]]()
sys.exit(1 if failures else 0)
