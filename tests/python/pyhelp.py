# SPDX-License-Identifier: Apache-2.0
"""Helpers shared by the Python binding tests."""

import os
import sys
import unittest

SHARED = os.environ.get("CHAKRA_SHARED") or os.path.join(
    os.path.dirname(__file__), "..")
TRACE = os.path.join(SHARED, "data", "chakra", "chakra.0.et.gz")
ORDER_V1 = os.path.join(SHARED, "data", "chakra", "chakra.0.order-v1.txt")
CHAKRA_EXE = os.environ.get("CHAKRA_EXE")

# A copy of the sources without tests/data: skip the whole test program
# (meson's exit status 77) instead of failing on every real-data test.
if not os.path.exists(TRACE):
    print("SKIP: test input %s is absent (tests/data/SOURCES.md)" % TRACE)
    sys.exit(77)


def need(path):
    """The real-data tests must not pass vacuously: a missing input fails."""
    if not os.path.exists(path):
        raise AssertionError("test input missing: %s (set CHAKRA_SHARED)" % path)
    return path


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


class TmpDirCase(unittest.TestCase):
    def setUp(self):
        import tempfile
        self._tmp = tempfile.TemporaryDirectory(prefix="chakra-py-")
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp, name)


def tool_env():
    """Environment for running the chakra command from a test: without the
    LD_PRELOAD of a sanitizer runtime meant for python (a clang ASan
    executable carries its own static runtime and aborts on a second)."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env
