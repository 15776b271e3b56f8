# SPDX-License-Identifier: Apache-2.0
"""Loading the shared library: search order, errors, version check."""

import os
import shutil
import subprocess
import sys
import unittest

from pyhelp import TmpDirCase

PKG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings",
                   "python", "libchakra")
LIB = os.environ.get("LIBCHAKRA_PATH")


def run_py(code, env_update, cwd=None):
    env = dict(os.environ)
    for k, v in env_update.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=60)


class LoadTest(TmpDirCase):
    def setUp(self):
        super().setUp()
        if not LIB:
            self.fail("LIBCHAKRA_PATH is not set (the meson test sets it)")

    def test_env_path_and_version(self):
        import libchakra
        self.assertEqual(os.path.realpath(libchakra.library_path), os.path.realpath(LIB))
        self.assertEqual(libchakra.library_version(), libchakra.__version__)
        self.assertEqual(libchakra.library_version_tuple[0], libchakra.BINDINGS_VERSION[0])

    def test_env_path_missing_is_clear(self):
        bad = self.path("nope/libchakra.so")
        p = run_py("import libchakra", {"LIBCHAKRA_PATH": bad})
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("ImportError", p.stderr)
        self.assertIn("LIBCHAKRA_PATH=" + bad, p.stderr)

    def _copy_pkg(self, with_lib):
        dst = self.path("site")
        shutil.copytree(PKG, os.path.join(dst, "libchakra"),
                        ignore=shutil.ignore_patterns("__pycache__", "*.in"))
        if with_lib:
            shutil.copy(LIB, os.path.join(dst, "libchakra", "libchakra.so"))
        return dst

    def test_next_to_package(self):
        site = self._copy_pkg(with_lib=True)
        p = run_py("import libchakra; print(libchakra.library_path)",
                   {"LIBCHAKRA_PATH": None, "PYTHONPATH": site})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), os.path.join(site, "libchakra", "libchakra.so"))

    def test_not_found_is_clear(self):
        # Without LIBCHAKRA_PATH and the loader path of the test run (which
        # may hold the build tree's library), only an installed libchakra
        # could be found; ask the child that would find it.
        env = {"LIBCHAKRA_PATH": None, "LD_LIBRARY_PATH": None, "PKG_CONFIG_PATH": None}
        found = run_py("import ctypes.util; print(ctypes.util.find_library('chakra') or '')",
                       env).stdout.strip()
        if found:
            self.skipTest("a libchakra is installed (the loader finds %s); not-found cannot "
                          "be shown" % found)
        site = self._copy_pkg(with_lib=False)
        env["PYTHONPATH"] = site
        p = run_py("import libchakra", env)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("ImportError: libchakra: shared library libchakra not found", p.stderr)
        self.assertIn("LIBCHAKRA_PATH", p.stderr)

    def test_major_version_mismatch_refused(self):
        cc = shutil.which("cc") or shutil.which("gcc")
        if not cc:
            self.skipTest("no C compiler to build a fake library")
        src = self.path("fake.c")
        with open(src, "w") as f:
            f.write("unsigned chakra_version(void) { return 10203; }\n")
        so = self.path("libfake.so")
        # A plain build, whatever the sanitizer settings of the test run.
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        subprocess.run([cc, "-shared", "-fPIC", "-o", so, src], check=True, env=env)
        p = run_py("import libchakra", {"LIBCHAKRA_PATH": so})
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("is version 1.2.3 but these bindings need 0.x.x", p.stderr)


if __name__ == "__main__":
    unittest.main()
