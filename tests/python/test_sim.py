# SPDX-License-Identifier: Apache-2.0
"""libchakra.sim(): the simulator library (libchakra-sim) from Python, on
the shared ASTRA-sim microbenchmarks, against the reference cycles of
simulation-model.md; configs as files and as dicts; callbacks; errors."""

import json
import os
import subprocess
import unittest

import libchakra as C
from libchakra import _sim
from pyhelp import SHARED, CHAKRA_EXE, need, TmpDirCase

try:
    _sim._load()
    NO_SIM = None
except C.ChakraError as e:  # a build without the tools has no libchakra-sim
    NO_SIM = str(e)

D = os.path.join(SHARED, "data", "astra-sim")


def micro(coll, n):
    need(os.path.join(D, "microbenchmarks", coll, "%dnpus_1MB" % n, coll + ".0.et"))
    return os.path.join(D, "microbenchmarks", coll, "%dnpus_1MB" % n, coll)


def net(n):
    return need(os.path.join(D, "network", "Ring_%dnpus.yml" % n))


SYS = os.path.join(D, "system", "Ring_4chunks.json")


@unittest.skipIf(NO_SIM, "libchakra-sim not available: %s" % NO_SIM)
class SimTest(TmpDirCase):
    def test_reference_cycles(self):
        # simulation-model.md: every NPU finishes at these cycles, both models.
        want = {("all_reduce", 4): 43000, ("all_reduce", 8): 64440,
                ("all_gather", 8): 151016, ("reduce_scatter", 16): 50740,
                ("all_to_all", 4): 41560}
        for model in ("unaware", "aware"):
            for (coll, n), cycles in want.items():
                r = C.sim(micro(coll, n), net(n), need(SYS), model=model)
                self.assertEqual(r.finish_cycles, cycles, (coll, n, model))
                self.assertEqual(len(r), n)
                for i, p in enumerate(r):
                    self.assertEqual(p.npu, i)
                    self.assertEqual(p.finish_cycles, cycles)
                    self.assertEqual(p.compute_cycles, 0)
                    self.assertEqual(p.exposed_comm_cycles, cycles)
                    self.assertEqual(p.nodes, 1)

    def test_hgx_aware_queueing(self):
        w = micro("all_reduce", 8)
        n = need(os.path.join(D, "network", "HGX-H100-validated.yml"))
        s = need(os.path.join(D, "system", "HGX-H100-validated.json"))
        self.assertEqual(C.sim(w, n, s).finish_cycles, 55222)
        self.assertEqual(C.sim(w, n, s, model="aware").finish_cycles, 57426)

    def test_same_as_the_command(self):
        if not CHAKRA_EXE:
            self.skipTest("CHAKRA_EXE not set")
        w = micro("all_gather", 4)
        out = subprocess.run([CHAKRA_EXE, "sim", "--workload", w, "--network", net(4),
                              "--system", SYS, "--json", "--start-delay", "1=777"],
                             check=True, capture_output=True).stdout
        cli = json.loads(out)
        r = C.sim(w, net(4), SYS, start_delay={1: 777})
        self.assertEqual(cli["finish_cycles"], r.finish_cycles)
        self.assertEqual([p["finish_cycles"] for p in cli["npus"]],
                         [p.finish_cycles for p in r])
        self.assertEqual([p["comm_busy_cycles"] for p in cli["npus"]],
                         [p.comm_busy_cycles for p in r])
        self.assertEqual(cli["nodes"], r.nodes)

    def test_dict_configs_and_callbacks(self):
        network = {"topology": ["Ring"], "npus_count": [8], "bandwidth": [50],
                   "latency": [500]}
        with open(SYS) as f:
            system = json.load(f)
        finished, events = [], []
        r = C.sim(micro("all_reduce", 8), network, system, on_finish=finished.append,
                  on_event=lambda *e: events.append(e))
        self.assertEqual(r.finish_cycles, 64440)
        self.assertEqual(sorted(p.npu for p in finished), list(range(8)))
        self.assertTrue(all(p.finish_cycles == 64440 for p in finished))
        self.assertEqual(len(events), 16)
        self.assertEqual(sorted(e[0] for e in events), ["done"] * 8 + ["issue"] * 8)
        self.assertTrue(all(e[2] == (0 if e[0] == "issue" else 64440) for e in events))

    def test_groups_and_scaling(self):
        w = micro("all_reduce", 8)
        # One group of all 8 ranks spans dimension 0: same as no group.
        groups = {"0": list(range(8))}
        self.assertEqual(C.sim(w, net(8), SYS, comm_group=groups).finish_cycles, 64440)
        self.assertEqual(C.sim(w, net(8), SYS, compute_scale=2.0).finish_cycles, 64440)
        self.assertEqual(C.sim(w, net(8), SYS, start_delay=[0, 0, 0, 1000, 0, 0, 0, 0])
                         .finish_cycles, 65440)
        r = C.sim(w, net(8), SYS, memory=8 << 20, window=16)
        self.assertEqual(r.finish_cycles, 64440)
        self.assertIsNone(r.warning)

    def test_errors(self):
        w = micro("all_reduce", 8)
        with self.assertRaises(C.ConfigError) as cm:
            C.sim(w, {"topology": ["Ring"], "npus_count": [8], "bandwidth": [50],
                      "latency": ["slow"]}, SYS)
        self.assertIn("'latency'", str(cm.exception))
        bad = os.path.join(self.tmp, "bad.json")
        with open(bad, "w") as f:
            f.write('{\n "endpoint-delay": 10,\n "local-mem-bw": 1600,\n'
                    ' "active-chunks-per-dimension": -1\n}\n')
        with self.assertRaises(C.ConfigError) as cm:
            C.sim(w, net(8), bad)
        self.assertIn("bad.json:4: key 'active-chunks-per-dimension'", str(cm.exception))
        with self.assertRaises(C.ChakraIOError):
            C.sim(w, net(8), os.path.join(self.tmp, "none.json"))
        with self.assertRaises(C.ChakraError) as cm:
            C.sim(w, net(4), SYS)
        self.assertIn("has 8 ranks but the network has 4", str(cm.exception))
        with self.assertRaises(C.ConfigError):
            C.sim(w, net(8), SYS, comm_group={"0": [0, 9]})
        with self.assertRaises(ValueError):
            C.sim(w, net(8), SYS, model="fast")
        with self.assertRaises(ValueError):
            C.sim(w, net(8), SYS, start_delay={8: 1})
        with self.assertRaises(ValueError):
            C.sim(w, net(8), SYS, compute_scale=-1)

    def test_converted_trace(self):
        # A trace chakra convert wrote runs under ASTRA-sim's rules by default
        # (stock ASTRA-sim's 2,453,000 cycles; tests/sim/sim_traces.sh).
        k = need(os.path.join(SHARED, "data", "kineto", "hta-critical-path", "cuda_event_sync",
                              "event_sync_trace.json.gz"))
        if not CHAKRA_EXE:
            self.skipTest("no chakra command")
        prefix = os.path.join(self.tmp, "es")
        subprocess.run([CHAKRA_EXE, "convert", "kineto", k, "--step", "100", "-o",
                        prefix + ".0.et", "-q"], check=True)
        one = {"topology": ["Switch"], "npus_count": [1], "bandwidth": [50], "latency": [500]}
        r = C.sim(prefix, one, SYS)
        self.assertEqual((r.finish_cycles, r.rules), (2453000, "astra-sim"))
        self.assertEqual(r[0].exposed_comm_cycles, 2402000)  # finish - GPU compute
        self.assertGreater(r[0].cpu_cycles, 0)
        r = C.sim(prefix, one, SYS, rules="model")
        self.assertEqual((r.finish_cycles, r.rules), (2466000, "model"))
        self.assertEqual(C.sim(prefix, one, SYS, deps="data").finish_cycles,
                         C.sim(prefix, one, SYS, rules="astra-sim", deps="data").finish_cycles)
        with self.assertRaises(ValueError):
            C.sim(prefix, one, SYS, rules="stock")
        with self.assertRaises(ValueError):
            C.sim(prefix, one, SYS, durations="seconds")

    def test_callback_exception_is_raised(self):
        def boom(_):
            raise KeyError("from the callback")
        with self.assertRaises(KeyError):
            C.sim(micro("all_reduce", 4), net(4), SYS, on_finish=boom)


if __name__ == "__main__":
    unittest.main()
