# SPDX-License-Identifier: Apache-2.0
"""libchakra.convert_text (libchakra-gen) from Python: the same files, byte
for byte, as `chakra convert text` on the shared ASTRA-sim text workloads
(a data-parallel ResNet-50, the hybrid DLRM, a transformer with
recomputation), with options; a bad workload raises with the command's
message and leaves nothing behind."""

import os
import subprocess
import unittest

import libchakra as C
from libchakra import _gen
from pyhelp import SHARED, CHAKRA_EXE, need, tool_env, TmpDirCase

TEXT = os.path.join(SHARED, "data", "astra-sim", "text_workloads")

try:
    _gen._load()
    NO_LIB = None
except C.ChakraError as e:  # a build without the tools has no libchakra-gen
    NO_LIB = str(e)


def files_of(d):
    out = {}
    for n in sorted(os.listdir(d)):
        with open(os.path.join(d, n), "rb") as f:
            out[n] = f.read()
    return out


@unittest.skipIf(NO_LIB, NO_LIB)
class ConvertText(TmpDirCase):
    def both(self, name, npus, py_kw, cli_args):
        """Files from Python and from the command, compared whole."""
        if not CHAKRA_EXE:
            self.skipTest("the chakra command is not built")
        wl = need(os.path.join(TEXT, name))
        a, b = self.path("py"), self.path("cli")
        os.mkdir(a)
        os.mkdir(b)
        notes = C.convert_text(wl, os.path.join(a, "w"), npus, **py_kw)
        r = subprocess.run([CHAKRA_EXE, "convert", "text", wl, "--npus", str(npus), "-o",
                            os.path.join(b, "w")] + cli_args,
                           env=tool_env(), capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        fa, fb = files_of(a), files_of(b)
        self.assertEqual(sorted(fa), sorted(fb))
        for n in fa:
            self.assertEqual(fa[n], fb[n], n)
        # the notes are the lines the command printed
        self.assertEqual(["chakra: " + m for m in notes],
                         [l for l in r.stderr.splitlines() if ": note: " in l])
        return fa, notes

    def test_resnet_data_parallel(self):
        fa, _ = self.both("Resnet50_DataParallel.txt", 8, {}, [])
        self.assertEqual(len([n for n in fa if n.endswith(".et")]), 8)
        self.assertIn("w.comm_groups.json", fa)

    def test_dlrm_options(self):
        kw = {"dims": [2, 4], "passes": 2, "ghz": 1.5, "compute_scale": 0.5, "comm_scale": 2,
              "gzip": True}
        fa, _ = self.both("DLRM_HybridParallel.txt", 8, kw,
                          ["--dims", "2x4", "--passes", "2", "--ghz", "1.5",
                           "--compute-scale", "0.5", "--comm-scale", "2", "--gzip"])
        self.assertEqual(len([n for n in fa if n.endswith(".et.gz")]), 8)

    def test_transformer_rank_map_strong(self):
        fa, _ = self.both("Transformer_HybridParallel_Fwd_In_Bckwd.txt", 16,
                          {"rank_map": True, "strong_scaling": True, "no_groups": True},
                          ["--rank-map", "--strong-scaling", "--no-groups"])
        self.assertEqual(sorted(fa), ["w.c0.et", "w.ranks"])

    def test_model_parallel_notes(self):
        # MODEL parallelism leaves weight-gradient collectives out, with a note
        _, notes = self.both("MLP_ModelParallel.txt", 4, {}, [])
        self.assertTrue(all(": note: " in n for n in notes))

    def test_bad_workload(self):
        bad = self.path("bad.txt")
        with open(bad, "w") as f:
            f.write("DATA\n1\nlayer -1 10 NONE 0 10 NONE 0 10 ALLREDUCE\n")
        out = self.path("o")
        with self.assertRaises(C.ChakraError) as cm:
            C.convert_text(bad, out, 4)
        self.assertEqual(cm.exception.code, -5)  # CHAKRA_ECORRUPT
        self.assertIn("bad.txt:3: a DATA layer line has 12 fields", cm.exception.message)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["bad.txt"])

    def test_refuses_existing(self):
        wl = need(os.path.join(TEXT, "microAllReduce.txt"))
        out = self.path("m")
        C.convert_text(wl, out, 4)
        with self.assertRaises(C.ChakraError) as cm:
            C.convert_text(wl, out, 4)
        self.assertIn("m.0.et", cm.exception.message)
        C.convert_text(wl, out, 4, force=True)
        with self.assertRaises(ValueError):
            C.convert_text(wl, out, 6, dims=[4, 4], force=True)


if __name__ == "__main__":
    unittest.main()
