#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The symmetry reduction at 16,384 NPUs (docs/sim.md, "Symmetry"): one NPU
per class against every NPU (--no-symmetry), bit for bit. Parts (each a
test of its own, a few seconds to ~20 s):

  chain   the chain of `chakra bench sim` (a rank map, 10 nodes) on three
          networks (Ring x Switch x Switch 8 x 16 x 128, FullyConnected x
          Ring x Switch 4 x 8 x 512, Switch x Switch 128 x 128) with ring,
          direct and halvingDoubling per dimension, 1-4 splits and 1-2
          active chunks (configurations the reduction keeps: more chunks
          in flight end phases on one cycle from different events, a
          documented fallback), congestion-unaware;
  aware   the chain (2 nodes) congestion-aware on Ring x Switch x Switch x
          Switch 8 x 8 x 16 x 16 with ring, direct and halvingDoubling;
  gpt     a 3D-parallel GPT iteration (`chakra generate model --model gpt
          --rank-map`, tp 8 x pp 4 x dp 512, groups on its own network)
          under the model's rules;
  gpt-astra  the same under ASTRA-sim's (groups as rings in listed order);

every NPU's results and --json (but "classes"), and for the chains the
simulated NPUs' --events lines. Each run must be reduced.

    sim_sym_scale.py --part chain|aware|gpt|gpt-astra [--keep DIR]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

CHAKRA = os.environ.get("CHAKRA_EXE")


# Without meson's MALLOC_PERTURB_: it writes every byte malloc hands out,
# and 16,384 feeders' buffers, mostly never touched, would then take GiBs.
ENV = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}


def run(args):
    p = subprocess.run([CHAKRA] + args, capture_output=True, text=True, env=ENV)
    if p.returncode:
        raise RuntimeError("chakra %s: exit %d: %s" % (" ".join(args), p.returncode,
                                                        p.stderr.strip()[-400:]))
    return p


def sim(args, events):
    p = run(["sim"] + args + ["--json"] + (["--events", events, "-f"] if events else []))
    return json.loads(p.stdout), p.stderr


def compare(what, args, tmp, events, want_reduced=True):
    ev_s = os.path.join(tmp, "s.csv") if events else None
    ev_f = os.path.join(tmp, "f.csv") if events else None
    js, es = sim(args, ev_s)
    jf, _ = sim(args + ["--no-symmetry"], ev_f)
    k = js.pop("classes")
    jf.pop("classes")
    bad = []
    if js != jf:
        bad.append("--json differs")
    if events:
        reps = set()
        with open(ev_s) as f:
            lines_s = f.read().splitlines()
        for line in lines_s:
            reps.add(line.split(",")[1])
        with open(ev_f) as f:
            lines_f = [l for l in f.read().splitlines() if l.split(",")[1] in reps]
        if lines_s != lines_f:
            bad.append("--events differ")
    if want_reduced and k == len(js["npus"]):
        bad.append("not reduced: " + es.strip()[-200:])
    print("%s %s: %d NPUs in %d class(es), finish %d%s" % (
        "FAIL" if bad else "ok  ", what, len(js["npus"]), k, js["finish_cycles"],
        ("; " + "; ".join(bad)) if bad else ""))
    return 1 if bad else 0


def system(tmp, name, algs, splits, chunks):
    path = os.path.join(tmp, name + ".json")
    sysd = {"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": chunks,
            "preferred-dataset-splits": splits, "collective-optimization": "localBWAware",
            "local-mem-bw": 1600, "boost-mode": 0}
    for row in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all"):
        sysd[row + "-implementation"] = algs
    with open(path, "w") as f:
        json.dump(sysd, f)
    return path


def network(tmp, name, topos, sizes):
    path = os.path.join(tmp, name + ".yml")
    with open(path, "w") as f:
        f.write("topology: [ %s ]\nnpus_count: [ %s ]\nbandwidth: [ %s ]\nlatency: [ %s ]\n" % (
            ", ".join(topos), ", ".join(map(str, sizes)), ", ".join("50" for _ in sizes),
            ", ".join("500" for _ in sizes)))
    return path


def chain_cases(tmp, part):
    if part == "chain":
        shape, nodes = "8x16x128", 10
        cases = [
            (["Ring", "Switch", "Switch"], [8, 16, 128], ["ring", "ring", "ring"], 4, 1),
            (["Ring", "Switch", "Switch"], [8, 16, 128], ["halvingDoubling", "direct", "ring"], 4, 1),
            (["FullyConnected", "Ring", "Switch"], [4, 8, 512], ["direct", "ring", "halvingDoubling"],
             1, 1),
            (["Switch", "Switch"], [128, 128], ["ring", "direct"], 1, 2),
        ]
        models = ["unaware"]
    else:
        shape, nodes = "8x8x16x16", 2
        topos = ["Ring", "Switch", "Switch", "Switch"]
        cases = [
            (topos, [8, 8, 16, 16], ["halvingDoubling", "ring", "ring", "ring"], 1, 1),
            (topos, [8, 8, 16, 16], ["direct", "ring", "direct", "ring"], 1, 1),
        ]
        models = ["aware"]
    chain = os.path.join(tmp, "chain")
    run(["bench", "sim", "--shape", shape, "--nodes", str(nodes), "--dir", chain, "--runs", "1",
         "--path", "symmetry"])
    fails = 0
    for i, (topos, sizes, algs, splits, chunks) in enumerate(cases):
        net = network(tmp, "net%d" % i, topos, sizes)
        sysf = system(tmp, "sys%d" % i, algs, splits, chunks)
        for model in models:
            fails += compare("chain x%d, %s %s, %s, %d splits, %d chunks, %s" % (
                nodes, "x".join(topos), "x".join(map(str, sizes)), "/".join(algs), splits, chunks,
                model), ["--workload", os.path.join(chain, "bench"), "--network", net,
                         "--system", sysf, "--model", model], tmp, True)
    return fails


def gpt_case(tmp, rules):
    gpt = os.path.join(tmp, "gpt")
    run(["generate", "model", "--model", "gpt", "--layers", "4", "--hidden", "512", "--heads",
         "8", "--seq", "256", "--global-batch", "1024", "--tp", "8", "--pp", "4", "--dp", "512",
         "--gpu", "a100", "-o", gpt, "--rank-map"])
    base = ["--workload", gpt, "--network", gpt + ".network.yml", "--system",
            gpt + ".system.json", "--comm-group", gpt + ".comm_groups.json"]
    return compare("GPT tp 8 x pp 4 x dp 512, %s rules, unaware" % rules,
                   base + ["--rules", rules], tmp, False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", required=True, choices=["chain", "aware", "gpt", "gpt-astra"])
    ap.add_argument("--keep", help="keep the workloads in this folder")
    a = ap.parse_args()
    if not CHAKRA:
        print("skipped: CHAKRA_EXE is not set")
        return 77
    tmp = a.keep or tempfile.mkdtemp(prefix="chakra-sym-scale-")
    os.makedirs(tmp, exist_ok=True)
    try:
        if a.part in ("chain", "aware"):
            fails = chain_cases(tmp, a.part)
        else:
            fails = gpt_case(tmp, "model" if a.part == "gpt" else "astra-sim")
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
