#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Differential test: `chakra sim` against stock ASTRA-sim (the analytical
backends, built from tests/data/astra-sim-src) on many small random
configurations: topologies, dimensions, algorithms, collectives, chunk
counts, active chunks, sizes, delays, both network models. Every NPU's
finish cycle must be the same.

    sim_diff.py [--count N] [--seed S] [--keep DIR] [--verbose]

The oracle's binaries come from $CHAKRA_ASTRA_SIM_BIN (a folder holding
AstraSim_Analytical_Congestion_Unaware and _Aware); without them the test
skips (exit 77). tests/sim/astra_oracle.sh builds them.
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
FINISHED = re.compile(r"sys\[(\d+)\] finished, (\d+) cycles")

TOPOS = ["Ring", "Switch", "FullyConnected"]
ALGS = ["ring", "direct", "halvingDoubling"]
COLLS = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all"]


def oracle(model):
    return os.path.join(BIN, "AstraSim_Analytical_Congestion_" + model.capitalize())


def remote_memory(tmp):
    p = os.path.join(tmp, "no_memory_expansion.json")
    if not os.path.exists(p):
        with open(p, "w") as f:
            json.dump({"memory-type": "NO_MEMORY_EXPANSION"}, f)
    return p


def pick(rng, model):
    """One random configuration (valid for the reference)."""
    dims = 1 if model == "aware" else rng.choice([1, 1, 2, 2, 3])
    coll = rng.choice(COLLS)
    algs = [rng.choice(ALGS) for _ in range(dims)]
    sizes = []
    for a in algs:
        sizes.append(rng.choice([2, 4, 8]) if a == "halvingDoubling"
                     else rng.choice([2, 3, 4, 5, 6, 8]))
    topos = [rng.choice(TOPOS) for _ in range(dims)]
    if model == "aware" and topos[0] == "Ring" and sizes[0] == 2:
        topos[0] = "FullyConnected"  # the reference's Ring of 2 connects twice (assert)
    if coll == "all_to_all" and "halvingDoubling" in algs:
        algs = [a if a != "halvingDoubling" else "direct" for a in algs]
    npus = 1
    for s in sizes:
        npus *= s
    if rng.random() < 0.2:
        # ASTRA-sim's flat ring over every NPU (first entry only)
        flat = ["oneRing", "oneDirect"]
        if npus & (npus - 1) == 0 and coll != "all_to_all":
            flat.append("oneHalvingDoubling")
        algs[0] = rng.choice(flat)
    splits = rng.choice([1, 1, 2, 3, 4, 8])
    # Sizes the reference divides exactly (integer message sizes).
    quantum = splits * npus * npus
    size = quantum * rng.choice([1, 3, 16, 64, 256, 1024, 4096])
    cfg = {
        "model": model, "coll": coll, "npus": npus, "size": size,
        "net": {"topology": topos,
                "npus_count": sizes,
                "bandwidth": [rng.choice([12.5, 25.0, 50.0, 100.0, 300.0]) for _ in range(dims)],
                "latency": [rng.choice([0.0, 1.0, 10.0, 100.0, 500.0, 1000.0])
                            for _ in range(dims)]},
        "sys": {"scheduling-policy": rng.choice(["LIFO", "FIFO"]),
                "endpoint-delay": rng.choice([1, 10, 100]),
                "active-chunks-per-dimension": rng.choice([1, 1, 2, 3, 4]),
                "preferred-dataset-splits": splits,
                "all-reduce-implementation": algs,
                "all-gather-implementation": algs,
                "reduce-scatter-implementation": algs,
                "all-to-all-implementation": algs,
                "collective-optimization": rng.choice(["localBWAware", "baseline"]),
                "local-mem-bw": rng.choice([50, 100, 1600]),
                "boost-mode": 0},
    }
    return cfg


def write_cfg(d, cfg):
    net = os.path.join(d, "net.yml")
    with open(net, "w") as f:
        for k, v in cfg["net"].items():
            f.write("%s: [ %s ]\n" % (k, ", ".join(str(x) for x in v)))
    sysf = os.path.join(d, "sys.json")
    with open(sysf, "w") as f:
        json.dump(cfg["sys"], f, indent=1)
    wl = os.path.join(d, "wl")
    subprocess.run([CHAKRA, "generate", "micro", "--collective", cfg["coll"], "--npus",
                    str(cfg["npus"]), "--size", str(cfg["size"]), "-o", wl, "-f"],
                   check=True, capture_output=True)
    return wl, net, sysf


def run_oracle(cfg, wl, net, sysf, tmp):
    p = subprocess.run([oracle(cfg["model"]), "--workload-configuration=" + wl,
                        "--system-configuration=" + sysf,
                        "--remote-memory-configuration=" + remote_memory(tmp),
                        "--network-configuration=" + net],
                       capture_output=True, text=True, timeout=300, cwd=tmp)
    got = {}
    for m in FINISHED.finditer(p.stdout + p.stderr):
        got[int(m.group(1))] = int(m.group(2))
    if len(got) != cfg["npus"]:
        return None, (p.stdout + p.stderr)[-600:]
    return [got[i] for i in range(cfg["npus"])], None


def run_ours(cfg, wl, net, sysf):
    p = subprocess.run([CHAKRA, "sim", "--workload", wl, "--network", net, "--system", sysf,
                        "--model", cfg["model"], "--json"], capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0:
        return None, p.stderr.strip()
    return [n["finish_cycles"] for n in json.loads(p.stdout)["npus"]], None


def known_gap(cfg):
    """The one difference left (docs/sim.md): congestion-aware halving-doubling
    on a Ring topology with more than one chunk in flight, where the
    reference assigns the same set of finish cycles to other NPUs."""
    if (cfg["model"] == "aware" and cfg["net"]["topology"][0] == "Ring" and
            "halvingDoubling" in cfg["sys"]["all-reduce-implementation"] and
            cfg["sys"]["active-chunks-per-dimension"] > 1):
        return "aware halvingDoubling on a Ring with several active chunks"
    return None


def describe(cfg):
    s = cfg["sys"]
    return ("%s %s %d B on %s %s bw %s lat %s; %s splits %d active %d e %d lbw %d %s" % (
        cfg["model"], cfg["coll"], cfg["size"], cfg["net"]["topology"],
        cfg["net"]["npus_count"], cfg["net"]["bandwidth"], cfg["net"]["latency"],
        s["all-reduce-implementation"], s["preferred-dataset-splits"],
        s["active-chunks-per-dimension"], s["endpoint-delay"], s["local-mem-bw"],
        s["collective-optimization"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="keep each failing case's files in this folder")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--model", choices=["unaware", "aware"],
                    help="only this network model (default: both, one in three aware)")
    args = ap.parse_args()
    if not CHAKRA:
        print("CHAKRA_EXE is not set")
        return 2
    if not BIN or not all(os.access(oracle(m), os.X_OK) for m in ("unaware", "aware")):
        print("skipped: no ASTRA-sim oracle (set CHAKRA_ASTRA_SIM_BIN to the folder of "
              "AstraSim_Analytical_Congestion_{Unaware,Aware}; tests/sim/astra_oracle.sh "
              "builds them)")
        return 77
    rng = random.Random(args.seed)
    tmp = tempfile.mkdtemp(prefix="chakra-sim-diff-")
    bad = same = refused = known = 0
    try:
        for k in range(args.count):
            cfg = pick(rng, args.model or ("aware" if k % 3 == 2 else "unaware"))
            d = os.path.join(tmp, "c%d" % k)
            os.mkdir(d)
            wl, net, sysf = write_cfg(d, cfg)
            want, oerr = run_oracle(cfg, wl, net, sysf, d)
            if want is None:
                refused += 1
                if args.verbose:
                    print("oracle refused #%d (%s): %s" % (k, describe(cfg), oerr))
                shutil.rmtree(d)
                continue
            got, err = run_ours(cfg, wl, net, sysf)
            if got == want:
                same += 1
                if args.verbose:
                    print("ok   #%d %s: %d" % (k, describe(cfg), want[0]))
                shutil.rmtree(d)
                continue
            gap = known_gap(cfg) if got else None
            if gap:
                known += 1
            else:
                bad += 1
            print("%s #%d %s\n     ASTRA-sim %s\n     ours      %s" % (
                "KNOWN (%s)" % gap if gap else "FAIL", k, describe(cfg),
                want if len(set(want)) > 1 else want[0],
                err or (got if len(set(got)) > 1 else got[0])))
            if args.keep:
                dst = os.path.join(args.keep, "case%d" % k)
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(d, dst)
            shutil.rmtree(d)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d configurations: %d same, %d different, %d known differences, %d refused by "
          "the reference (seed %d)" % (args.count, same, bad, known, refused, args.seed))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
