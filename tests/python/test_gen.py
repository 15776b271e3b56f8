# SPDX-License-Identifier: Apache-2.0
"""libchakra.convert_text, generate_model and generate_micro
(libchakra-gen) from Python: the same files, byte for byte, as `chakra
convert text` on the shared ASTRA-sim text workloads (a data-parallel
ResNet-50, the hybrid DLRM, a transformer with recomputation), as `chakra
generate model` (each model and parallelism), `chakra generate micro` and
`chakra generate basic`, with options; a bad workload or option raises with the
module's message and leaves nothing behind."""

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


@unittest.skipIf(NO_LIB, NO_LIB)
class GenerateModel(TmpDirCase):
    def both(self, npus, model, parallel, py_kw, cli_args):
        if not CHAKRA_EXE:
            self.skipTest("the chakra command is not built")
        self.runs = getattr(self, "runs", 0) + 1
        a, b = self.path("py%d" % self.runs), self.path("cli%d" % self.runs)
        os.mkdir(a)
        os.mkdir(b)
        C.generate_model(os.path.join(a, "w"), npus, model, parallel, **py_kw)
        r = subprocess.run([CHAKRA_EXE, "generate", "model", "--model", model, "--parallel",
                            parallel, "--npus", str(npus), "-o", os.path.join(b, "w")]
                           + cli_args, env=tool_env(), capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        fa, fb = files_of(a), files_of(b)
        self.assertEqual(sorted(fa), sorted(fb))
        for n in fa:
            self.assertEqual(fa[n], fb[n], n)
        return fa

    def test_every_model_and_parallelism(self):
        for model in ("mlp", "dlrm", "transformer"):
            for par in ("data", "model", "hybrid"):
                with self.subTest(model=model, parallel=par):
                    fa = self.both(8, model, par, {}, [])
                    self.assertEqual(len([n for n in fa if n.endswith(".et")]), 8)

    def test_options(self):
        kw = {"dims": [4, 4], "layers": 3, "hidden": 512, "batch": 256, "mp_group": 4,
              "dtype_bytes": 4, "tflops": 50.0, "mem_gbps": 900.0, "passes": 2, "gzip": True}
        fa = self.both(16, "transformer", "hybrid", kw,
                       ["--dims", "4x4", "--layers", "3", "--hidden", "512", "--batch", "256",
                        "--mp-group", "4", "--dtype-bytes", "4", "--tflops", "50",
                        "--mem-gbps", "900", "--passes", "2", "--gzip"])
        self.assertEqual(len([n for n in fa if n.endswith(".et.gz")]), 16)
        fa = self.both(8, "dlrm", "data", {"rank_map": True, "no_groups": True},
                       ["--rank-map", "--no-groups"])
        self.assertEqual(sorted(fa), ["w.c0.et", "w.ranks"])

    def test_bad_options(self):
        out = self.path("o")
        with self.assertRaises(C.ChakraError) as cm:
            C.generate_model(out, 6, "mlp", "data", batch=4)
        self.assertEqual(cm.exception.code, -3)  # CHAKRA_EINVAL
        self.assertIn("batch 4 must be a multiple of the data-parallel degree 6",
                      cm.exception.message)
        with self.assertRaises(C.ChakraError) as cm:
            C.generate_model(out, 8, "mlp", "hybrid", mp_group=3)
        self.assertIn("mp_group 3 must divide npus 8", cm.exception.message)
        with self.assertRaises(ValueError):
            C.generate_model(out, 8, "gpt", "data")
        self.assertEqual(os.listdir(self.tmp), [])


@unittest.skipIf(NO_LIB, NO_LIB)
class GenerateMicro(TmpDirCase):
    def test_same_files_as_the_command(self):
        if not CHAKRA_EXE:
            self.skipTest("the chakra command is not built")
        cases = [("all_reduce", 8, 1 << 20, []), ("all_to_all", 4, 65536, ["--gzip"]),
                 ("reduce_scatter", 16, 3000, []), ("send_recv_ring", 4, 1 << 30, [])]
        for k, (coll, npus, size, extra) in enumerate(cases):
            with self.subTest(collective=coll):
                a, b = self.path("py%d" % k), self.path("cli%d" % k)
                os.mkdir(a)
                os.mkdir(b)
                C.generate_micro(os.path.join(a, "m"), npus, coll, size,
                                 gzip="--gzip" in extra)
                which = (["--send-recv-ring"] if coll == "send_recv_ring"
                         else ["--collective", coll])
                r = subprocess.run([CHAKRA_EXE, "generate", "micro", "--npus", str(npus),
                                    "--size", str(size), "-o", os.path.join(b, "m")]
                                   + which + extra, env=tool_env(), capture_output=True,
                                   text=True)
                self.assertEqual(r.returncode, 0, r.stderr)
                fa, fb = files_of(a), files_of(b)
                self.assertEqual(len(fa), npus)
                self.assertEqual(fa, fb)

    def test_refusals(self):
        out = self.path("m")
        C.generate_micro(out, 2, "broadcast", 1024)
        with self.assertRaises(C.ChakraError) as cm:
            C.generate_micro(out, 2, "broadcast", 1024)
        self.assertIn("m.0.et", cm.exception.message)
        with self.assertRaises(C.ChakraError) as cm:
            C.generate_micro(self.path("r"), 1, "send_recv_ring", 8)
        self.assertIn("a ring needs npus 2 or more", cm.exception.message)
        with self.assertRaises(ValueError):
            C.generate_micro(out, 2, "gather", 8)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["m.0.et", "m.1.et"])


@unittest.skipIf(NO_LIB, NO_LIB)
class GenerateBasic(TmpDirCase):
    def test_same_files_as_the_command(self):
        if not CHAKRA_EXE:
            self.skipTest("the chakra command is not built")
        a, b = self.path("py"), self.path("cli")
        os.mkdir(a)
        os.mkdir(b)
        C.generate_basic(a, 4, runtime=7, comm_size=4096)
        r = subprocess.run([CHAKRA_EXE, "generate", "basic", "--npus", "4", "--runtime", "7",
                            "--comm-size", "4096", "-o", b], env=tool_env(),
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        fa, fb = files_of(a), files_of(b)
        self.assertEqual(len(fa), 14 * 4)
        self.assertEqual(fa, fb)
        # an existing file refuses the whole set: nothing changes
        with self.assertRaises(C.ChakraError) as cm:
            C.generate_basic(a, 4, runtime=9)
        self.assertIn("exists", cm.exception.message)
        self.assertEqual(files_of(a), fa)


if __name__ == "__main__":
    unittest.main()
