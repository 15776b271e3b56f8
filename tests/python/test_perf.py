# SPDX-License-Identifier: Apache-2.0
"""libchakra.replay (libchakra-perf) from Python: on real traces (HTA's
cuda_event_sync Kineto trace and PARAM's linear model, converted), the
report is the document `chakra sim --replay --json` prints, with and
without --between (every window replayed, the median reported) and with
modelled gaps; the recorded iteration is replayed exactly; a trace that
is not there raises with the model's message."""

import json
import os
import subprocess
import unittest

import libchakra as C
from libchakra import _perf
from pyhelp import SHARED, CHAKRA_EXE, need, tool_env, TmpDirCase

SYNC = os.path.join(SHARED, "data", "kineto", "hta-critical-path", "cuda_event_sync",
                    "event_sync_trace.json.gz")
LINEAR = os.path.join(SHARED, "data", "pytorch", "param-linear", "linear_kineto.json.gz")
ZERO_GRAD = "Optimizer.zero_grad#SGD.zero_grad"

try:
    _perf._load()
    NO_LIB = None
except C.ChakraError as e:  # a build without the tools has no libchakra-perf
    NO_LIB = str(e)


@unittest.skipIf(NO_LIB, NO_LIB)
class Replay(TmpDirCase):
    def run_cli(self, *args):
        r = subprocess.run([CHAKRA_EXE] + list(args), env=tool_env(), capture_output=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def setUp(self):
        super().setUp()
        if not CHAKRA_EXE:
            self.skipTest("the chakra command is not built")

    def test_same_report_as_the_command(self):
        et = self.path("es.et")
        self.run_cli("convert", "kineto", need(SYNC), "--step", "100", "-o", et, "-q")
        for kw, flags in (({}, []), ({"modelled_gaps": True}, ["--modelled-gaps"]),
                          ({"iterations": 3}, ["--iterations", "3"])):
            with self.subTest(flags=flags):
                got = C.replay(et, **kw)
                want = json.loads(self.run_cli("sim", "--replay", "--workload", et, "--json",
                                               *flags))
                self.assertEqual(got, want)
        self.assertGreater(got["iteration_us"], 0)

    def test_between_median(self):
        et = self.path("lin.et")
        self.run_cli("convert", "kineto", need(LINEAR), "-o", et, "-q")
        got = C.replay(et, between=ZERO_GRAD, skip=1)
        want = json.loads(self.run_cli("sim", "--replay", "--workload", et, "--json",
                                       "--between", ZERO_GRAD, "--skip", "1"))
        self.assertEqual(got, want)
        self.assertEqual(len(got["windows"]), 38)
        self.assertEqual(got["iteration_us"], got["reported_window_recorded_us"])  # exact
        with self.assertRaises(ValueError):
            C.replay(et, between="no such annotation")

    def test_missing_trace(self):
        with self.assertRaises(C.ChakraError) as cm:
            C.replay(self.path("absent"))
        self.assertIn("absent", cm.exception.message)


if __name__ == "__main__":
    unittest.main()
