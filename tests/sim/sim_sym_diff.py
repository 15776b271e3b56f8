#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Differential test of the symmetry reduction (docs/sim.md, "Symmetry"):
`chakra sim` one NPU per class against `chakra sim --no-symmetry` on random
workloads, networks and systems. Everything must be identical: every NPU's
results and the rest of --json (but "classes"), and the simulated NPUs'
lines of --events and --timeline, in order. A run the reduction refuses
(it simulates every NPU) is compared too, and counted apart.

Workloads: the chain of `chakra bench sim` as one trace with a rank map, as
per-rank copies or as links to one file (classes by bytes and by file), with
stragglers (--start-delay) splitting classes; `chakra generate model` (MLP,
DLRM, Transformer under data, model and hybrid parallelism) with a rank map;
`chakra generate model --model gpt` (tensor x pipeline x data parallelism,
interleaving, sequence parallelism, the distributed optimizer) with a rank
map. Networks: 1-3 dimensions of Ring, Switch and FullyConnected (for GPT,
its layout's dimensions under random topologies); systems: ring, direct,
halvingDoubling, doubleBinaryTree and oneRing/oneDirect per dimension, 1-4
splits, 1-3 active chunks, endpoint delays, localBWAware or baseline; both
network models and both rule sets.

    sim_sym_diff.py [--count N] [--seed S] [--keep DIR] [--verbose]
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

CHAKRA = os.environ.get("CHAKRA_EXE")
TOPOS = ["Ring", "Switch", "FullyConnected"]


def run(args, check=True):
    p = subprocess.run([CHAKRA] + args, capture_output=True, text=True)
    if check and p.returncode:
        raise RuntimeError("chakra %s: %s" % (" ".join(args), p.stderr.strip()[:400]))
    return p


def factors(n, k, rng):
    """n as k factors >= 2 (fewer when n has fewer prime factors)."""
    primes, m, d = [], n, 2
    while m > 1:
        while m % d == 0:
            primes.append(d)
            m //= d
        d += 1
    rng.shuffle(primes)
    k = min(k, len(primes))
    out = [1] * k
    for i, p in enumerate(primes):
        out[i % k if i < k else rng.randrange(k)] *= p
    return out or [1]


def network(tmp, name, sizes, rng, topos=None):
    topos = topos or [rng.choice(TOPOS) for _ in sizes]
    for i, (t, s) in enumerate(zip(topos, sizes)):
        if t == "Ring" and s == 2:
            topos[i] = rng.choice(["Switch", "FullyConnected"])
    path = os.path.join(tmp, name + ".yml")
    with open(path, "w") as f:
        f.write("topology: [ %s ]\nnpus_count: [ %s ]\nbandwidth: [ %s ]\nlatency: [ %s ]\n" % (
            ", ".join(topos), ", ".join(map(str, sizes)),
            ", ".join(str(rng.choice([12.5, 25, 50, 100])) for _ in sizes),
            ", ".join(str(rng.choice([100, 500, 700])) for _ in sizes)))
    return path


def system(tmp, name, sizes, rng):
    """A system for these dimension sizes: per dimension an algorithm that fits."""
    def alg(n, row):
        choices = ["ring", "ring", "direct"]
        if n & (n - 1) == 0:
            choices.append("halvingDoubling")
        if row == "all-reduce":
            choices.append("doubleBinaryTree")
        return rng.choice(choices)
    flat = rng.random() < 0.1
    rows = {}
    for row in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all"):
        if flat and row != "all-to-all":
            total = 1
            for s in sizes:
                total *= s
            rows[row] = [rng.choice(["oneRing", "oneDirect"] +
                                    (["oneHalvingDoubling"] if total & (total - 1) == 0 else []))]
        else:
            rows[row] = [alg(s, row) for s in sizes]
    sysd = {"scheduling-policy": "LIFO", "endpoint-delay": rng.choice([0, 10, 100]),
            "active-chunks-per-dimension": rng.choice([1, 1, 2, 3]),
            "preferred-dataset-splits": rng.choice([1, 2, 4]),
            "collective-optimization": rng.choice(["localBWAware", "localBWAware", "baseline"]),
            "local-mem-bw": rng.choice([50, 1600]), "boost-mode": 0}
    for row, v in rows.items():
        sysd[row + "-implementation"] = v
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(sysd, f)
    return path


def chain(tmp, n, rng, i):
    """The bench chain: one file and a map, copies, or links; maybe stragglers."""
    d = os.path.join(tmp, "chain%d" % i)
    os.makedirs(d)
    nodes = rng.choice([6, 10, 20])
    run(["bench", "sim", "--npus", "8", "--nodes", str(nodes), "--dir", d, "--runs", "1",
         "--path", "symmetry"])
    src = os.path.join(d, "bench.c0.et")
    how = rng.choice(["map", "copies", "links"])
    prefix = os.path.join(d, "w")
    if how == "map":
        with open(prefix + ".ranks", "w") as f:
            f.write("chakra-rank-map 1\nranks %d\nclass 0 bench.c0.et\n0-%d 0\n" % (n, n - 1))
    for r in range(n if how != "map" else 0):
        if how == "copies":
            shutil.copy(src, "%s.%d.et" % (prefix, r))
        else:
            os.symlink(src, "%s.%d.et" % (prefix, r))
    extra = []
    if rng.random() < 0.3:
        for r in rng.sample(range(n), rng.randint(1, min(3, n))):
            extra += ["--start-delay", "%d=%d" % (r, rng.choice([100, 5000]))]
    sizes = factors(n, rng.choice([1, 2, 3]), rng)
    return prefix, [], sizes, None, extra, "chain/%s" % how


def model(tmp, n, rng, i):
    m = rng.choice(["mlp", "dlrm", "transformer"])
    par = rng.choice(["data", "model", "hybrid"])
    sizes = factors(n, rng.choice([1, 2, 3]), rng)
    prefix = os.path.join(tmp, "model%d" % i)
    args = ["generate", "model", "--model", m, "--parallel", par, "--npus", str(n), "-o", prefix,
            "--rank-map", "--dims", "x".join(map(str, sizes))]
    if m == "transformer":
        args += ["--layers", "2"]
    if par == "hybrid" and len(sizes) > 1:
        args += ["--mp-group", str(sizes[0])]
    args += ["--batch", str(64 * n)]  # (a multiple of any data-parallel degree)
    run(args)
    groups = ["--comm-group", prefix + ".comm_groups.json"] if rng.random() < 0.8 else []
    return prefix, groups, sizes, None, [], "%s/%s" % (m, par)


def gpt(tmp, n, rng, i):
    while True:
        tp = rng.choice([1, 2, 4])
        pp = rng.choice([1, 2, 4])
        if n % (tp * pp) == 0 and tp * pp > 1:
            break
    dp = n // (tp * pp)
    prefix = os.path.join(tmp, "gpt%d" % i)
    v = rng.choice([1, 1, 2]) if pp > 1 else 1
    layers = 4 * pp * v
    mb = rng.choice([1, 2])
    m = pp * rng.choice([1, 2])
    args = ["generate", "model", "--model", "gpt", "--layers", str(layers), "--hidden", "256",
            "--heads", "8", "--seq", "128", "--global-batch", str(m * mb * dp), "--micro-batch",
            str(mb), "--tp", str(tp), "--pp", str(pp), "--dp", str(dp), "--gpu", "a100",
            "--gpus-per-node", str(rng.choice([2, 4, 8])), "-o", prefix, "--rank-map"]
    if v > 1:
        args += ["--interleave", str(v)]
    if tp > 1 and rng.random() < 0.3:
        args.append("--sequence-parallel")
    if dp > 1 and rng.random() < 0.3:
        args.append("--distributed-optimizer")
    p = run(args, check=False)
    if p.returncode:
        return None
    text = open(prefix + ".network.yml").read()
    sizes = [int(x) for x in text.split("npus_count: [")[1].split("]")[0].split(",")]
    return prefix, ["--comm-group", prefix + ".comm_groups.json"], sizes, "gpt", [], \
        "gpt tp%d pp%d dp%d v%d" % (tp, pp, dp, v)


def outputs(args, tag, tmp):
    ev, tl = os.path.join(tmp, tag + ".csv"), os.path.join(tmp, tag + ".tl.json")
    p = run(["sim"] + args + ["--json", "--events", ev, "--timeline", tl, "-f"], check=False)
    if p.returncode:
        return p.returncode, p.stderr.strip(), None, None, None
    return 0, p.stderr, json.loads(p.stdout), open(ev).read().splitlines(), json.load(open(tl))


def compare(args, tmp):
    rs, es, js, evs, tls = outputs(args, "s", tmp)
    rf, ef, jf, evf, tlf = outputs(args + ["--no-symmetry"], "f", tmp)
    if rs or rf:
        if rs == rf and es.split("chakra sim:")[0] == ef.split("chakra sim:")[0]:
            return "error", es[-200:]
        return "DIFF", "exit %d/%d: %s | %s" % (rs, rf, es[-300:], ef[-300:])
    k = js.pop("classes")
    jf.pop("classes")
    if js != jf:
        bad = [n for n in range(len(js["npus"])) if js["npus"][n] != jf["npus"][n]][:4]
        return "DIFF", "json (npus %s): %s vs %s" % (bad, json.dumps(js)[:300],
                                                     json.dumps(jf)[:300])
    sim = {e["pid"] for e in tls["traceEvents"] if e.get("ph") == "M"}
    evf = [l for l in evf if int(l.split(",")[1].split("=")[1]) in sim]
    if evs != evf:
        at = next(i for i in range(min(len(evs), len(evf)) + 1)
                  if i >= min(len(evs), len(evf)) or evs[i] != evf[i])
        return "DIFF", "events from line %d: %s vs %s" % (at, evs[at:at + 2], evf[at:at + 2])
    tlf = [e for e in tlf["traceEvents"] if e["pid"] in sim]
    if tls["traceEvents"] != tlf:
        return "DIFF", "timeline"
    if k == len(js["npus"]):
        reason = [l for l in es.splitlines() if "simulated every NPU" in l]
        return "full", reason[0][:160] if reason else "no classes"
    return "same", "%d classes" % k


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="keep the workloads in this folder")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    if not CHAKRA:
        print("skipped: CHAKRA_EXE is not set")
        return 77
    rng = random.Random(a.seed)
    tmp = a.keep or tempfile.mkdtemp(prefix="chakra-sym-diff-")
    os.makedirs(tmp, exist_ok=True)
    counts = {"same": 0, "full": 0, "error": 0, "DIFF": 0}
    try:
        for i in range(a.count):
            n = rng.choice([4, 6, 8, 12, 16, 32])
            kind = rng.choice([chain, chain, model, gpt, gpt])
            w = kind(tmp, n, rng, i)
            if w is None:
                continue
            prefix, groups, sizes, net_kind, extra, what = w
            net = network(tmp, "net%d" % i, sizes, rng)
            sysf = system(tmp, "sys%d" % i, sizes, rng)
            for mdl in ("unaware", "aware"):
                rules = rng.choice(["model", "astra-sim"])
                args = ["--workload", prefix, "--network", net, "--system", sysf, "--model", mdl,
                        "--rules", rules] + groups + extra
                verdict, why = compare(args, tmp)
                counts[verdict] += 1
                line = "%-5s #%d %s, %d NPUs %s %s %s: %s" % (verdict, i, what, n, sizes, mdl,
                                                               rules, why)
                if verdict == "DIFF" or a.verbose:
                    print(line)
                    if verdict == "DIFF":
                        print("  chakra sim " + " ".join(args))
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d runs: %d reduced and identical, %d refused by the reduction and identical, %d "
          "errors alike, %d DIFFERENT (seed %d)" % (sum(counts.values()), counts["same"],
                                                   counts["full"], counts["error"], counts["DIFF"],
                                                   a.seed))
    return 1 if counts["DIFF"] else 0


if __name__ == "__main__":
    sys.exit(main())
