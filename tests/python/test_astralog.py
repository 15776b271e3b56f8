# SPDX-License-Identifier: Apache-2.0
"""libchakra.read_sim_log (libchakra-astralog) from Python: the events of
the simulator's event log for a real trace (HTA's NCCL Kineto trace,
converted, through `chakra sim --events`), the same as `chakra timeline` writes from it (node,
NPU, lane, start and duration of every one); a bad line raises with its
FILE:LINE; an issue without its callback is unfinished."""

import json
import os
import subprocess
import unittest

import libchakra as C
from libchakra import _astralog
from pyhelp import SHARED, CHAKRA_EXE, need, tool_env, TmpDirCase

KINETO = os.path.join(SHARED, "data", "kineto", "hta-nccl", "nccl_data.json.gz")

try:
    _astralog._load()
    NO_LIB = None
except C.ChakraError as e:  # a build without the tools has no libchakra-astralog
    NO_LIB = str(e)


@unittest.skipIf(NO_LIB, NO_LIB)
class ReadSimLog(TmpDirCase):
    def test_real_trace_matches_timeline(self):
        if not CHAKRA_EXE:
            self.skipTest("the chakra command is not built")
        et, ev = self.path("k.et"), self.path("ev.csv")
        for args in (["convert", "kineto", need(KINETO), "-o", et],
                     ["sim", "--workload", et, "--events", ev]):
            r = subprocess.run([CHAKRA_EXE] + args, env=tool_env(), capture_output=True,
                               text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
        log = C.read_sim_log(ev, 1)
        self.assertGreater(len(log.events), 1000)
        self.assertEqual(log.unfinished, [])
        self.assertEqual(log.skipped, 0)
        out = self.path("tl.json")
        r = subprocess.run([CHAKRA_EXE, "timeline", ev, "--npus", "1", "--frequency", "1",
                            "-o", out], env=tool_env(), capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, encoding="utf-8") as f:
            xs = [e for e in json.load(f)["traceEvents"] if e["ph"] == "X"]
        self.assertEqual(len(xs), len(log.events))
        got = [(e.npu, e.lane, e.node_id, e.name, e.start, e.end - e.start) for e in log.events]
        want = [(e["pid"], e["tid"], e["args"]["node_id"], e["name"],
                 e["args"]["issue_cycle"], e["args"]["callback_cycle"] - e["args"]["issue_cycle"])
                for e in xs]
        self.assertEqual(got, want)
        self.assertEqual(log.lanes, 1 + max(e.lane for e in log.events))
        # lanes: no two events of one lane overlap
        last = {}
        for e in log.events:
            self.assertGreaterEqual(e.start, last.get((e.npu, e.lane), 0))
            last[(e.npu, e.lane)] = e.end

    def test_bad_line_and_unfinished(self):
        bad = self.path("bad.csv")
        with open(bad, "w") as f:
            f.write("issue,npu_id=0,cycle=1,node_id=1,node_name=a\n"
                    "issue,npu_id=2,cycle=1,node_id=1,node_name=a\n")
        with self.assertRaises(C.CorruptError) as cm:
            C.read_sim_log(bad, 2)
        self.assertIn("bad.csv:2: npu_id 2 is out of range", cm.exception.message)
        ok = self.path("ok.csv")
        with open(ok, "w") as f:
            f.write("issue,npu_id=0,cycle=10,node_id=5,node_name=a, with comma\n"
                    "callback,npu_id=0,cycle=30,node_id=5,node_name=a, with comma\n"
                    "issue,npu_id=1,cycle=40,node_id=6,node_name=b\n")
        log = C.read_sim_log(ok, 2)
        self.assertEqual(log.events, [C._astralog.Event(0, 0, 5, "a, with comma", 10, 30, 1)])
        self.assertEqual(log.unfinished, [C._astralog.Unfinished(1, 6, "b", 40, 3)])


if __name__ == "__main__":
    unittest.main()
