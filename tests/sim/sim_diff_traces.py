#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Differential test on converted real traces: `chakra sim` (its default
rules, ASTRA-sim's for what `chakra convert` writes) against stock
ASTRA-sim, every NPU's finish cycle and exposed communication.

    sim_diff_traces.py [--random N] [--seed S] [--keep DIR] [--verbose]
                       [--oracle2 DIR]

Runs (docs/sim.md, "Against stock ASTRA-sim on converted traces"):
  - every PyTorch ET and Kineto trace of tests/data through `chakra convert`
    (single-rank ones on every NPU of their group: stock ASTRA-sim refuses a
    1-NPU network; compute-only ones also alone on 1 NPU, which must give
    the same cycles), multi-rank conversions (`convert kineto '...{R}...'`),
    `chakra project` and `chakra synth sample` outputs; both network models,
    Ring / Switch / FullyConnected and a 2-D network, fast and slow links;
  - `chakra generate model` workloads with process groups under
    --rules astra-sim, and GPT workloads (`--model gpt`) over two and three
    parallel axes on the files the generator writes, some also on one
    Switch with both network models;
  - N random workloads shaped like converted traces (CPU and GPU compute,
    invalid nodes, collectives, send/recv, data and control dependencies,
    whole and zero durations, duration_nanos the rules must ignore).

What stock ASTRA-sim cannot run is given to both simulators in a form it
can, and reported: METADATA nodes (an assertion in its statistics) are
taken out, and `chakra sim` must give the same cycles with them; a
communicator group named "0" (an assertion) is left out of the group file
(group 0 is every NPU under its rules anyway). Runs it refuses or aborts
are counted apart, never as agreement on numbers: collectives marked
is_cpu_op (it stops: `chakra sim` warns), a point-to-point message at cycle
0 with the congestion-aware backend (an assertion). When stock ASTRA-sim
dies in its statistics after some ranks finished (an exception it does not
catch), those ranks are compared. When it crashes in its teardown before
its logger wrote every rank's line (a double free with groups smaller than
the system), it is run again.

The oracle's binaries come from $CHAKRA_ASTRA_SIM_BIN (as sim_diff.py);
--oracle2 DIR runs a second build too (ASTRA-sim on libchakra,
bindings/cpp/astra-sim) and requires it to print what the first does.
Without an oracle the test skips (exit 77).
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

CHAKRA = os.environ.get("CHAKRA_EXE")
BIN = os.environ.get("CHAKRA_ASTRA_SIM_BIN", "")
SRC = os.environ.get("CHAKRA_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(os.environ.get("CHAKRA_SHARED", os.path.join(SRC, "tests")), "data")
FINISHED = re.compile(r"sys\[(\d+)\] finished, (\d+) cycles, exposed communication (\d+) cycles")

# name: (topology, npus per dimension, GB/s, ns). "slow" links put the
# collectives of these host-bound traces on the critical path.
NETS = {
    "switch2": (["Switch"], [2], [50.0], [500.0]),
    "switch2-slow": (["Switch"], [2], [0.5], [5000.0]),
    "fc2-slow": (["FullyConnected"], [2], [0.5], [5000.0]),
    "fc3": (["FullyConnected"], [3], [50.0], [500.0]),
    "ring4-slow": (["Ring"], [4], [0.5], [5000.0]),
    "switch4": (["Switch"], [4], [50.0], [500.0]),
    "fc4-slow": (["FullyConnected"], [4], [0.5], [5000.0]),
    "ring8-slow": (["Ring"], [8], [0.5], [5000.0]),
    "ring-switch8-slow": (["Ring", "Switch"], [2, 4], [1.0, 0.25], [500.0, 2000.0]),
    "ring-switch16": (["Ring", "Switch"], [4, 4], [50.0, 25.0], [500.0, 700.0]),
    "ring16": (["Ring"], [16], [50.0], [500.0]),
    "one": (["Switch"], [1], [50.0], [500.0]),
}
SYSTEM = {"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
          "preferred-dataset-splits": 4, "collective-optimization": "localBWAware",
          "local-mem-bw": 1600, "boost-mode": 0, "roofline-enabled": 0, "peak-perf": 900}


def oracle(folder, model):
    return os.path.join(folder, "AstraSim_Analytical_Congestion_" + model.capitalize())


class Ctx:
    def __init__(self, tmp, verbose, oracle2):
        self.tmp = tmp
        self.verbose = verbose
        self.oracle2 = oracle2
        self.counts = {}
        self.failures = []
        self.mem = os.path.join(tmp, "no_memory_expansion.json")
        with open(self.mem, "w") as f:
            json.dump({"memory-type": "NO_MEMORY_EXPANSION"}, f)
        self.nets = {}
        for name, (topo, n, bw, lat) in NETS.items():
            p = os.path.join(tmp, name + ".yml")
            with open(p, "w") as f:
                f.write("topology: [ %s ]\nnpus_count: [ %s ]\nbandwidth: [ %s ]\nlatency: [ %s ]\n"
                        % tuple(", ".join(str(x) for x in v) for v in (topo, n, bw, lat)))
            self.nets[name] = (p, len(topo))
        self.systems = {}
        # Variants for the random workloads: other algorithms, chunking and
        # delays move the collectives' ends against the nodes around them.
        variants = {0: {}, 1: {"impl": ["direct", "ring"], "endpoint-delay": 100},
                    2: {"active-chunks-per-dimension": 2, "preferred-dataset-splits": 8},
                    3: {"impl": ["halvingDoubling", "direct"], "endpoint-delay": 1}}
        for dims in (1, 2):
            for v, change in variants.items():
                s = dict(SYSTEM)
                impl = change.get("impl", ["ring", "direct"])
                for k in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all"):
                    # (ASTRA-sim's halving-doubling has no all-to-all)
                    s[k + "-implementation"] = [a if k != "all-to-all" or a != "halvingDoubling"
                                                else "direct" for a in impl[:dims]]
                s.update({k: x for k, x in change.items() if k != "impl"})
                p = os.path.join(tmp, "sys%d-%d.json" % (dims, v))
                with open(p, "w") as f:
                    json.dump(s, f)
                self.systems[(dims, v)] = p
            self.systems[dims] = self.systems[(dims, 0)]

    def count(self, what):
        self.counts[what] = self.counts.get(what, 0) + 1


def chakra(*args, check=True):
    p = subprocess.run([CHAKRA] + list(args), capture_output=True, text=True, timeout=600)
    if check and p.returncode != 0:
        raise RuntimeError("chakra %s: %s" % (" ".join(args), p.stderr.strip()[-500:]))
    return p


def run_stock(ctx, folder, model, wl, net, sysf, groups, npus=0):
    args = [oracle(folder, model), "--workload-configuration=" + wl,
            "--system-configuration=" + sysf, "--remote-memory-configuration=" + ctx.mem,
            "--network-configuration=" + net]
    if groups:
        args.append("--comm-group-configuration=" + groups)
    for attempt in range(4):
        p = subprocess.run(args, capture_output=True, text=True, timeout=600, cwd=ctx.tmp)
        out = p.stdout + p.stderr
        ranks = {int(m.group(1)): (int(m.group(2)), int(m.group(3)))
                 for m in FINISHED.finditer(out)}
        # Its statistics throw after printing a rank's line when that rank has
        # CPU or invalid nodes; uncaught (outside its event loop) that ends the run.
        died_in_stats = ("Only GPU and COMM types are supported" in out and
                         "terminate called" in out)
        # With groups smaller than the system and a one-entry implementation
        # list, its teardown frees the implementation the groups' plans share
        # with its lookup, once per plan (CollectivePlan's destructor): the
        # heap check aborts after every rank finished, and the lines its
        # logger thread had not written yet are lost (more of them on a busy
        # machine). Run it again rather than compare a partial log (its own
        # assertions, rule 17, are not that).
        if died_in_stats or p.returncode >= 0 or len(ranks) >= npus or "Assertion" in out:
            break
        ctx.count("stock runs that crashed in their teardown before logging every rank "
                  "(run again)")
    return ranks, died_in_stats, out


def run_ours(wl, net, sysf, groups, model, extra=()):
    args = ["sim", "--workload", wl, "--network", net, "--system", sysf, "--model", model,
            "--astra-sim-log"] + list(extra)
    if groups:
        args += ["--comm-group", groups]
    p = chakra(*args, check=False)
    if p.returncode != 0:
        return None, p.stderr.strip()
    ranks = {int(m.group(1)): (int(m.group(2)), int(m.group(3)))
             for m in FINISHED.finditer(p.stdout)}
    return ranks, p.stderr.strip()


def compare(ctx, kind, name, wl, npus, net, model, groups=None, extra=(), stock_refuses=None,
            variant=0, files=None):
    """One run of both simulators; returns our per-rank results (or None).
    files: the workload's own (network, system) instead of NETS[net]'s."""
    if files:
        netf, sysf = files
    else:
        netf, dims = ctx.nets[net]
        sysf = ctx.systems[(dims, variant)]
    ours, oerr = run_ours(wl, netf, sysf, groups, model, extra)
    want, died, sout = run_stock(ctx, BIN, model, wl, netf, sysf, groups, npus)
    label = "%s %s on %s (%s)" % (kind, name, net, model)
    if ctx.oracle2:
        want2, died2, sout2 = run_stock(ctx, ctx.oracle2, model, wl, netf, sysf, groups, npus)
        both = set(want) & set(want2) if died or died2 else set(want) | set(want2)
        if died != died2 or any(want.get(r) != want2.get(r) for r in both):
            ctx.failures.append("%s: the second oracle printed %s, the first %s" % (
                label, sorted(want2.items()), sorted(want.items())))
            print("FAIL " + ctx.failures[-1])
    if stock_refuses:
        # Stock ASTRA-sim cannot run it (the reason is known); ours runs it
        # and says why stock does not.
        if want or ours is None or stock_refuses not in oerr:
            ctx.failures.append("%s: expected stock ASTRA-sim to refuse it and chakra sim to "
                                "warn '%s'; stock %s, chakra sim %s: %s" % (
                                    label, stock_refuses, sorted(want.items()),
                                    ours and sorted(ours.items()), oerr[-300:]))
            print("FAIL " + ctx.failures[-1])
        else:
            ctx.count("refused by stock ASTRA-sim (%s), run by chakra sim with a warning" % kind)
            if ctx.verbose:
                print("ok   %s: stock refuses it, chakra sim warns" % label)
        return ours
    if ours is not None and all(want[r] == ours.get(r) for r in want) and \
            (len(want) == npus or died):
        if len(want) == npus:
            ctx.count("%s runs identical" % kind)
        elif want:
            # Its logger runs in another thread: how many lines get out
            # before the exception ends the process varies.
            ctx.count("%s runs identical on the ranks stock printed before dying in its "
                      "statistics" % kind)
        else:
            ctx.count("%s runs stock died in its statistics before printing a rank" % kind)
        if ctx.verbose:
            print("ok   %s: %s" % (label, sorted(set(ours.values()))))
        return ours
    stalled = re.search(r"rank (\d+) node \d+", oerr or "")
    if ours is None and len(want) < npus and stalled and int(stalled.group(1)) not in want and \
            ("never" in oerr or "released by a node that takes no time" in oerr):
        # Both hang: stock prints no line for that rank (whatever else it
        # printed before ending), ours names why.
        ctx.count("%s runs both refuse (a rank never finishes)" % kind)
        if ctx.verbose:
            print("ok   %s: both stop (%s)" % (label, oerr[-160:]))
        return ours
    if not want and model == "aware" and "current_event_list.get_event_time() > current_time" \
            in sout and ours is not None:
        ctx.count("%s runs stock's congestion-aware backend aborts (event at cycle 0)" % kind)
        return ours
    ctx.failures.append("%s:\n     stock     %s%s\n     chakra    %s" % (
        label, sorted(want.items()), " (died in its statistics)" if died else
        "" if want else " " + sout.strip()[-300:], sorted(ours.items()) if ours else oerr[-300:]))
    print("FAIL " + ctx.failures[-1])
    return ours


# ---------------- inputs ----------------

def strip_metadata(src_prefix, dst_prefix, npus):
    """The workload without METADATA nodes (stock ASTRA-sim asserts on them);
    True if a node had one as a dependency."""
    linked = False
    for r in range(npus):
        d = json.loads(chakra("jsonize", "%s.%d.et" % (src_prefix, r)).stdout)
        drop = {n["id"] for n in d["nodes"] if n["type"] == "METADATA_NODE"}
        d["nodes"] = [n for n in d["nodes"] if n["id"] not in drop]
        for n in d["nodes"]:
            for k in ("data_deps", "ctrl_deps"):
                kept = [x for x in n.get(k, []) if x not in drop]
                linked |= len(kept) != len(n.get(k, []))
                n[k] = kept
        p = subprocess.run([CHAKRA, "pack", "-", "-o", "%s.%d.et" % (dst_prefix, r), "-f"],
                           input=json.dumps(d).encode(), capture_output=True)
        if p.returncode:
            raise RuntimeError("pack: " + p.stderr.decode()[-300:])
    return linked


def groups_without_zero(src, dst):
    """The group file without group "0" (stock asserts on it); None if empty."""
    if not src or not os.path.exists(src):
        return None
    with open(src) as f:
        g = json.load(f)
    g.pop("0", None)
    if not g:
        return None
    with open(dst, "w") as f:
        json.dump(g, f)
    return dst


def replicate(src, prefix, npus):
    """A single-rank trace on every NPU of its group."""
    for r in range(npus):
        shutil.copyfile(src, "%s.%d.et" % (prefix, r))


def data(*parts):
    return os.path.join(DATA, *parts)


def traces(ctx):
    t = ctx.tmp
    K = data("kineto")
    P = data("pytorch")
    A = "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
    # (name, convert arguments, runs) for single-rank conversions; runs: a
    # list of (network, model); compute-only ones also run alone.
    single = [
        ("cuda_event_sync step 100", ["kineto", data("kineto/hta-critical-path/cuda_event_sync/"
                                                     "event_sync_trace.json.gz"), "--step", "100"]),
        ("cuda_event_sync_multi_stream", ["kineto", data("kineto/hta-critical-path/"
                                                         "cuda_event_sync_multi_stream/"
                                                         "event_sync_trace.json.gz")]),
        ("alexnet param_measure #2", ["kineto", data("kineto/hta-critical-path/alexnet/"
                                                     "benchmark_result_2869224_1695835535_trace"
                                                     ".json.gz"), "--annotation", A,
                                      "--instance", "1"]),
        ("simple_add param_measure #2", ["kineto", data("kineto/hta-critical-path/simple_add/"
                                                        "benchmark_result_493459_1694039959_"
                                                        "trace.json.gz"), "--annotation", A,
                                         "--instance", "1"]),
        ("param-linear Kineto iteration 20", ["kineto", os.path.join(P, "param-linear",
                                                                     "linear_kineto.json.gz"),
                                              "--annotation", "Optimizer.zero_grad#SGD.zero_grad",
                                              "--instance", "20", "--to-next"]),
        ("param-linear ET", ["pytorch", "--et", os.path.join(P, "param-linear", "linear_et.json.gz")]),
        ("param-linear ET + Kineto", ["pytorch", "--et", os.path.join(P, "param-linear",
                                                                      "linear_et.json.gz"),
                                      "--kineto", os.path.join(P, "param-linear",
                                                               "linear_kineto.json.gz")]),
        ("hta-simple-add ET", ["pytorch", "--et", os.path.join(P, "hta-simple-add",
                                                               "benchmark_simple_add_et.json.gz")]),
        ("hta-simple-add ET + Kineto", ["pytorch", "--et",
                                        os.path.join(P, "hta-simple-add",
                                                     "benchmark_simple_add_et.json.gz"),
                                        "--kineto", os.path.join(P, "hta-simple-add",
                                                                 "benchmark_simple_add_trace"
                                                                 ".json.gz")]),
        ("hta-simple-add Kineto", ["kineto", os.path.join(P, "hta-simple-add",
                                                          "benchmark_simple_add_trace.json.gz")]),
        # With collectives: on the two ranks of their group, slow links.
        ("hta-nccl step 5", ["kineto", os.path.join(K, "hta-nccl", "nccl_data.json.gz"),
                             "--step", "5"]),
        ("resnet50-ddp ET + hta-nccl Kineto", ["pytorch", "--et",
                                               os.path.join(P, "param-resnet50-ddp",
                                                            "resnet_1gpu_et.json.gz"),
                                               "--kineto", os.path.join(K, "hta-nccl",
                                                                        "nccl_data.json.gz")]),
        # Whole traces (38,867 and 14,540 nodes): one run each.
        ("param-linear Kineto, whole trace", ["kineto", os.path.join(P, "param-linear",
                                                                     "linear_kineto.json.gz")]),
        ("hta-nccl, whole trace", ["kineto", os.path.join(K, "hta-nccl", "nccl_data.json.gz")]),
        # Host ops that are collectives (ET alone): stock ASTRA-sim refuses them.
        ("chakra-allgather ET", ["pytorch", "--et", os.path.join(P, "chakra-allgather",
                                                                 "1.0.2-chakra.0.0.4.json")]),
        ("resnet50-ddp ET", ["pytorch", "--et", os.path.join(P, "param-resnet50-ddp",
                                                             "resnet_1gpu_et.json.gz")]),
    ]
    for i, (name, conv) in enumerate(single):
        if not os.path.exists(conv[1] if conv[0] == "kineto" else conv[2]):
            ctx.count("skipped (input absent)")
            continue
        base = os.path.join(t, "s%d" % i)
        chakra("convert", *conv, "-o", base + ".0.et", "-q")
        d = json.loads(chakra("jsonize", base + ".0.et").stdout)
        types = {n["type"] for n in d["nodes"]}
        coll = [n for n in d["nodes"] if n["type"] == "COMM_COLL_NODE"]
        cpu_coll = any(a["name"] == "is_cpu_op" and a["value"] for n in coll for a in n["attr"])
        replicate(base + ".0.et", base + "-orig", 2)
        wl = base + "-orig"
        if "METADATA_NODE" in types:
            wl = base + "-nometa"
            strip_metadata(base + "-orig", wl, 2)
        if cpu_coll:
            compare(ctx, "converted trace", name, wl, 2, "switch2", "unaware",
                    stock_refuses="marked is_cpu_op")
            continue
        if "whole trace" in name:
            compare(ctx, "converted trace", name, wl, 2, "switch2-slow", "unaware")
            continue
        if not coll:
            got = compare(ctx, "converted trace", name, wl, 2, "switch2", "unaware")
            compare(ctx, "converted trace", name, wl, 2, "switch2", "aware")
            replicate(base + ".0.et", base + "-one", 1)
            alone, err = run_ours(base + "-one", ctx.nets["one"][0], ctx.systems[1], None,
                                  "unaware")
            if got and alone and alone[0] == got[0]:
                ctx.count("single-rank traces alone on 1 NPU, as on every NPU")
            else:
                ctx.failures.append("%s: alone on 1 NPU %s, on 2 NPUs %s %s" % (
                    name, alone, got, err[-200:]))
                print("FAIL " + ctx.failures[-1])
            continue
        for net, model in (("switch2-slow", "unaware"), ("switch2-slow", "aware"),
                           ("fc2-slow", "aware")):
            got = compare(ctx, "converted trace", name, wl, 2, net, model)
        if wl != base + "-orig":
            same_meta(ctx, name, base + "-orig", wl, "switch2-slow")


def same_meta(ctx, name, orig, stripped, net):
    """chakra sim gives the same cycles with the METADATA nodes stock cannot take."""
    a, ea = run_ours(orig, ctx.nets[net][0], ctx.systems[ctx.nets[net][1]], None, "unaware")
    b, eb = run_ours(stripped, ctx.nets[net][0], ctx.systems[ctx.nets[net][1]], None, "unaware")
    if a and a == b:
        ctx.count("process-group METADATA nodes kept: same cycles as without them")
    else:
        ctx.failures.append("%s: with METADATA nodes %s, without %s (%s)" % (
            name, a, b, (ea + eb)[-200:]))
        print("FAIL " + ctx.failures[-1])


def multi_rank(ctx):
    t = ctx.tmp
    K = data("kineto")
    cases = []
    # A real 2-rank set (HTA's trace_filter sample: ranks 0 and 1 of a 128-rank job).
    filt = os.path.join(K, "hta-trace-filter", "sampled_rank-{R}.json.gz")
    if os.path.exists(filt.replace("{R}", "0")):
        chakra("convert", "kineto", filt, "-o", os.path.join(t, "filt"), "-q")
        cases.append(("hta-trace-filter ranks 0-1", os.path.join(t, "filt"), 2, True))
    # ResNet-50 DDP rank 0 of 2 and its copy as rank 1, through the {R} form.
    nccl = os.path.join(K, "hta-nccl", "nccl_data.json.gz")
    if os.path.exists(nccl):
        d = os.path.join(t, "ddp")
        os.mkdir(d)
        shutil.copyfile(nccl, os.path.join(d, "k0.json.gz"))
        p = subprocess.run("zcat '%s' | sed 's/\"rank\": *0/\"rank\": 1/' | gzip >'%s'" % (
            nccl, os.path.join(d, "k1.json.gz")), shell=True)
        if p.returncode:
            raise RuntimeError("cannot write rank 1 of hta-nccl")
        ddp = os.path.join(t, "ddp2")
        chakra("convert", "kineto", os.path.join(d, "k{R}.json.gz"), "--step", "4", "-o", ddp,
               "-q")
        cases.append(("hta-nccl x2 step 4", ddp, 2, True))
        # chakra project, at 4 and 8 ranks, of the conversion without its
        # METADATA nodes (projecting and then taking them out gives the same).
        strip_metadata(ddp, ddp + "-nometa", 2)
        shutil.copyfile(ddp + ".comm_groups.json", ddp + "-nometa.comm_groups.json")
        for dp in (4, 8):
            chakra("project", ddp + "-nometa", "--dp", str(dp), "-o",
                   os.path.join(t, "proj%d" % dp))
            cases.append(("chakra project --dp %d" % dp, os.path.join(t, "proj%d" % dp), dp,
                          False))
    runs = {2: [("switch2-slow", "unaware"), ("fc2-slow", "aware")],
            4: [("ring4-slow", "unaware"), ("ring4-slow", "aware"), ("fc4-slow", "unaware"),
                ("switch4", "aware")],
            8: [("ring8-slow", "unaware"), ("ring-switch8-slow", "unaware"),
                ("ring8-slow", "aware")]}
    for name, prefix, npus, meta in cases:
        wl = prefix + "-nometa" if meta else prefix
        if meta and not os.path.exists(wl + ".0.et"):
            strip_metadata(prefix, wl, npus)
        groups = groups_without_zero(prefix + ".comm_groups.json", prefix + "-groups.json")
        kind = "projected trace" if "project" in name else "multi-rank conversion"
        for net, model in runs[npus]:
            compare(ctx, kind, name, wl, npus, net, model, groups=groups)
        if meta:
            same_meta(ctx, name, prefix, wl, runs[npus][0][0])


def synthetic(ctx):
    """chakra synth sample of a converted trace: no metadata says how it was
    made, so --rules astra-sim asks for ASTRA-sim's rules."""
    t = ctx.tmp
    nccl = os.path.join(DATA, "kineto", "hta-nccl", "nccl_data.json.gz")
    if not os.path.exists(nccl):
        return
    chakra("convert", "kineto", nccl, "--step", "5", "-o", os.path.join(t, "fit.0.et"), "-q")
    # (a small model, and 600 nodes a rank: stock ASTRA-sim's issue loop
    # scans every ready node at every event, and sampled workloads have
    # thousands ready at once)
    chakra("synth", "fit", os.path.join(t, "fit"), "-o", os.path.join(t, "fit.json"), "-q",
           "--max-order", "1", "--max-components", "2")
    chakra("synth", "sample", os.path.join(t, "fit.json"), "--npus", "4", "--seed", "3",
           "--nodes", "600", "-o", os.path.join(t, "syn"))
    strip_metadata(os.path.join(t, "syn"), os.path.join(t, "syn-nometa"), 4)
    for net, model in (("fc4-slow", "unaware"), ("fc4-slow", "aware"), ("switch4", "unaware")):
        compare(ctx, "synthetic trace", "synth sample of hta-nccl step 5",
                os.path.join(t, "syn-nometa"), 4, net, model, extra=["--rules", "astra-sim"])


def generated(ctx):
    """`chakra generate model` workloads (process groups on a 2-D network)
    under --rules astra-sim: the rules are stock's on any workload."""
    t = ctx.tmp
    for model, par in (("transformer", "hybrid"), ("dlrm", "data")):
        prefix = os.path.join(t, "%s-%s" % (model, par))
        chakra("generate", "model", "--model", model, "--parallel", par, "--npus", "16",
               "--dims", "4x4", "-o", prefix)
        groups = groups_without_zero(prefix + ".comm_groups.json", prefix + "-groups.json")
        for net, m in (("ring-switch16", "unaware"), ("ring16", "aware")):
            compare(ctx, "generated workload (--rules astra-sim)", "%s %s" % (model, par),
                    prefix, 16, net, m, groups=groups, extra=["--rules", "astra-sim"])


# GPT layouts for gpt(): name, generate options. Small models (4 layers,
# hidden 512) over two and three parallel axes.
GPT = [
    ("tp 2 x dp 2", ["--tp", "2", "--dp", "2"]),
    ("tp 2 x pp 2", ["--tp", "2", "--pp", "2", "--dp", "1"]),
    ("pp 2 x dp 2", ["--pp", "2", "--dp", "2"]),
    ("tp 2 x pp 2 x dp 2", ["--tp", "2", "--pp", "2", "--dp", "2"]),
    ("tp 2 x pp 2 x dp 2, interleaved (2 chunks)", ["--tp", "2", "--pp", "2", "--dp", "2",
                                                    "--interleave", "2"]),
    ("tp 2 x dp 2, sequence parallel, distributed optimizer",
     ["--tp", "2", "--dp", "2", "--sequence-parallel", "--distributed-optimizer"]),
    ("tp 2 x pp 2 x dp 2, interleaved, sequence parallel, distributed optimizer, "
     "selective recomputation", ["--tp", "2", "--pp", "2", "--dp", "2", "--interleave", "2",
                                 "--sequence-parallel", "--distributed-optimizer",
                                 "--recompute", "selective"]),
    ("tp 2 x dp 4 on nodes of 4 GPUs", ["--tp", "2", "--dp", "4", "--gpus-per-node", "4"]),
    ("tp 4 x pp 2 x dp 2, 8 layers, hidden 1024, 16 micro-batches",
     ["--tp", "4", "--pp", "2", "--dp", "2", "--layers", "8", "--hidden", "1024",
      "--global-batch", "32", "--micro-batch", "1"]),
    ("tp 2 x pp 4 x dp 2 on nodes of 4 GPUs, 8 layers, interleaved (2 chunks), sequence "
     "parallel", ["--tp", "2", "--pp", "4", "--dp", "2", "--gpus-per-node", "4", "--layers", "8",
                  "--interleave", "2", "--sequence-parallel", "--global-batch", "16"]),
]
GPT_BASE = ["--layers", "4", "--hidden", "512", "--heads", "8", "--seq", "256",
            "--global-batch", "8", "--micro-batch", "2", "--gpu", "a100"]


def gpt(ctx):
    """`chakra generate model --model gpt` workloads over two and three
    parallel axes, on the files it writes (a Switch dimension per axis
    part, endpoint delay 0), under --rules astra-sim: their tensor, data
    and pipeline groups are smaller than the system, so they run on stock's
    ring of their own (docs/sim.md, rules 9 and 20). Stock's
    congestion-aware backend takes one dimension only: some are also
    generated for one Switch of every GPU (`--network`, `--system`), with
    direct as the groups' algorithm and a slow local memory (direct's
    rounds decide what is reduced), and run on both backends."""
    t = ctx.tmp
    net1, sys1 = os.path.join(t, "gpt-switch%d.yml"), os.path.join(t, "gpt-direct.json")
    s = {"scheduling-policy": "FIFO", "endpoint-delay": 0, "active-chunks-per-dimension": 1,
         "preferred-dataset-splits": 2, "collective-optimization": "localBWAware",
         "local-mem-bw": 50, "boost-mode": 0}
    for k in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all"):
        s[k + "-implementation"] = ["direct"]
    with open(sys1, "w") as f:
        json.dump(s, f)
    kind = "generated GPT workload (--rules astra-sim)"
    for i, (name, opts) in enumerate(GPT):
        prefix = os.path.join(t, "gpt%d" % i)
        opts = [x for k, v in zip(GPT_BASE[::2], GPT_BASE[1::2]) if k not in opts
                for x in (k, v)] + opts
        chakra("generate", "model", "--model", "gpt", *opts, "-o", prefix)
        with open(prefix + ".comm_groups.json") as f:
            npus = max(r for g in json.load(f).values() for r in g) + 1
        compare(ctx, kind, name, prefix, npus, "its own network", "unaware",
                groups=prefix + ".comm_groups.json", extra=["--rules", "astra-sim"],
                files=(prefix + ".network.yml", prefix + ".system.json"))
        if i not in (0, 3, 5, 7, 8):
            continue
        net = net1 % npus
        with open(net, "w") as f:
            f.write("topology: [ Switch ]\nnpus_count: [ %d ]\nbandwidth: [ 150 ]\n"
                    "latency: [ 700 ]\n" % npus)
        chakra("generate", "model", "--model", "gpt", *opts, "--network", net, "--system", sys1,
               "-o", prefix + "-1d")
        for model in ("unaware", "aware"):
            compare(ctx, kind, name, prefix + "-1d", npus, "one Switch, direct", model,
                    groups=prefix + "-1d.comm_groups.json", extra=["--rules", "astra-sim"],
                    files=(net, sys1))


# ---------------- random workloads shaped like converted traces ----------------

def random_workload(seed, npus, out, splits=4):
    """Collectives and sends keep their step order on each rank (they share
    the communication slot, so other orders can make ranks wait for each
    other forever, in both simulators)."""
    rng = random.Random(seed)
    ranks = [[] for _ in range(npus)]
    last_coll = [None] * npus
    sends = [[] for _ in range(npus)]
    durs = [0, 0, 1, 1, 2, 3, 5, 8, 13, 40, 100, 250]
    tag = [0]

    def add(r, node):
        node["id"] = len(ranks[r])
        node.setdefault("start_time_micros", 0)
        ranks[r].append(node)
        return node["id"]

    def pick(r, k):
        ids = [n["id"] for n in ranks[r]]
        return sorted(rng.sample(ids, min(len(ids), k))) if ids else []

    def attrs(cpu, more):
        a = [] if cpu is None else [{"name": "is_cpu_op", "kind": "bool", "value": cpu}]
        return a + more

    def comm(name, value):
        return {"name": name, "kind": "int64", "value": value}

    for s in range(rng.randint(6, 30)):
        x = rng.random()
        if x < 0.18:
            ct = rng.choice([0, 0, 2, 7, 6, 5])  # all-reduce, all-gather, RS, all-to-all, bcast
            size = splits * npus * npus * rng.choice([1, 4, 64, 1024, 16384])
            for r in range(npus):
                ctrl = ([last_coll[r]] if last_coll[r] is not None else []) + sends[r]
                sends[r] = []
                last_coll[r] = add(r, {"name": "coll%d" % s, "type": "COMM_COLL_NODE",
                                       "ctrl_deps": ctrl,
                                       "data_deps": [i for i in pick(r, rng.randint(0, 2))
                                                     if i not in ctrl],
                                       "duration_micros": rng.choice(durs),
                                       "attr": attrs(rng.choice([False, None]),
                                                     [comm("comm_type", ct),
                                                      comm("comm_size", size)])})
        elif x < 0.30 and npus > 1:
            a = rng.randrange(npus)
            b = rng.choice([i for i in range(npus) if i != a])
            t = tag[0] + rng.choice([0, 500000000])  # the receiver may name it modulo 5e8
            tag[0] += 1
            size = rng.choice([1, 64, 4096, 1 << 20])
            sends[a].append(len(ranks[a]))
            add(a, {"name": "send%d" % s, "type": "COMM_SEND_NODE",
                    "ctrl_deps": [last_coll[a]] if last_coll[a] is not None else [],
                    "data_deps": pick(a, rng.randint(0, 2)), "duration_micros": rng.choice(durs),
                    "attr": attrs(False, [comm("comm_src", a), comm("comm_dst", b),
                                          comm("comm_tag", t), comm("comm_size", size)])})
            add(b, {"name": "recv%d" % s, "type": "COMM_RECV_NODE", "ctrl_deps": [],
                    "data_deps": pick(b, rng.randint(0, 2)), "duration_micros": rng.choice(durs),
                    "attr": attrs(False, [comm("comm_src", a), comm("comm_dst", b),
                                          comm("comm_tag", t % 500000000 if rng.random() < 0.5
                                               else t), comm("comm_size", size)])})
        else:
            for r in range(npus):
                for _ in range(rng.randint(0, 4)):
                    inv = rng.random() < 0.03
                    cpu = rng.choice([True, False, None] if inv else [True, True, False, False, None])
                    data_deps = pick(r, rng.randint(0, 3))
                    ctrl = [i for i in pick(r, rng.randint(0, 2)) if i not in data_deps]
                    us = rng.choice(durs)
                    more = []
                    if rng.random() < 0.5:  # what converters write beside it: ignored
                        more.append({"name": "duration_nanos", "kind": "int64",
                                     "value": us * 1000 + rng.randint(-499, 499) if us
                                     else rng.randint(0, 499)})
                    add(r, {"name": "op%d" % s, "type": "INVALID_NODE" if inv else "COMP_NODE",
                            "ctrl_deps": ctrl, "data_deps": data_deps, "duration_micros": us,
                            "attr": attrs(cpu, more)})
    for r in range(npus):
        if not ranks[r]:
            add(r, {"name": "op", "type": "COMP_NODE", "ctrl_deps": [], "data_deps": [],
                    "duration_micros": 1, "attr": attrs(True, [])})
        doc = {"metadata": {"version": "0.0.4", "attr": [
            {"name": "source", "kind": "string", "value": "kineto"}]}, "nodes": ranks[r]}
        p = subprocess.run([CHAKRA, "pack", "-", "-o", "%s.%d.et" % (out, r), "-f"],
                           input=json.dumps(doc).encode(), capture_output=True)
        if p.returncode:
            raise RuntimeError("pack: " + p.stderr.decode()[-300:])


def random_runs(ctx, count, seed):
    nets = [("switch2", 2), ("fc3", 3), ("switch4", 4), ("ring4-slow", 4), ("ring-switch8-slow", 8)]
    for k in range(count):
        s = seed * 100000 + k
        net, npus = nets[k % len(nets)]
        model = "aware" if k % 4 == 3 and ctx.nets[net][1] == 1 else "unaware"
        variant = (k // len(nets)) % 4
        if variant == 3 and npus & (npus - 1):
            variant = 1  # halving-doubling needs a power of two
        prefix = os.path.join(ctx.tmp, "r%d" % k)
        random_workload(s, npus, prefix)
        compare(ctx, "random", "workload %d (system %d)" % (s, variant), prefix, npus, net,
                model, variant=variant)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--random", type=int, default=100, help="random workloads (default 100)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="keep the inputs in this folder")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--oracle2", help="a second ASTRA-sim build that must print the same")
    args = ap.parse_args()
    if not CHAKRA:
        print("CHAKRA_EXE is not set")
        return 2
    if not BIN or not all(os.access(oracle(BIN, m), os.X_OK) for m in ("unaware", "aware")):
        print("skipped: no ASTRA-sim oracle (set CHAKRA_ASTRA_SIM_BIN to the folder of "
              "AstraSim_Analytical_Congestion_{Unaware,Aware}; tests/sim/astra_oracle.sh "
              "builds them)")
        return 77
    tmp = tempfile.mkdtemp(prefix="chakra-sim-diff-traces-")
    ctx = Ctx(tmp, args.verbose, args.oracle2)
    try:
        traces(ctx)
        multi_rank(ctx)
        synthetic(ctx)
        generated(ctx)
        gpt(ctx)
        random_runs(ctx, args.random, args.seed)
    finally:
        if args.keep:
            shutil.rmtree(args.keep, ignore_errors=True)
            shutil.copytree(tmp, args.keep)
        shutil.rmtree(tmp, ignore_errors=True)
    for what in sorted(ctx.counts):
        print("%4d %s" % (ctx.counts[what], what))
    print("%d failure(s)" % len(ctx.failures))
    return 1 if ctx.failures else 0


if __name__ == "__main__":
    sys.exit(main())
