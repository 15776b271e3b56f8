# SPDX-License-Identifier: Apache-2.0
"""Benchmark of the Python bindings: nodes/s of Reader, Feeder and Writer,
each next to a floor measured in the same run -- the same C calls driven
from Python without converting anything into Python objects -- so the
figure says what the conversion costs. Usage:
    bench_python.py [N]   (synthetic trace of N nodes, default 50000)
Needs CHAKRA_EXE (chakra generate synthetic) and LIBCHAKRA_PATH."""

import ctypes
import os
import resource
import subprocess
import sys
import tempfile
import time

import libchakra as C
from libchakra._lib import lib
from pyhelp import TRACE, CHAKRA_EXE, need, tool_env


def timed(fn):
    """(result, wall seconds, CPU seconds): CPU time is the steadier figure
    on a shared machine."""
    t, c = time.perf_counter(), time.process_time()
    n = fn()
    return n, time.perf_counter() - t, time.process_time() - c


def floor_read(path):
    r = C.Reader(path)
    p = ctypes.c_void_p()
    ref = ctypes.byref(p)
    n = 0
    while lib.chakra_reader_next(r._h, ref) > 0:
        n += 1
    r.close()
    return n


def floor_feed(path):
    f = C.Feeder(path)
    p = ctypes.c_void_p()
    ref = ctypes.byref(p)
    n = 0
    while lib.chakra_feeder_next(f._h, ref) > 0:
        lib.chakra_feeder_complete(f._h, lib.chakra_node_id(p.value))
        n += 1
    f.close()
    return n


def read_all(path):
    with C.Reader(path) as r:
        return sum(1 for _ in r)


def feed_all(path):
    with C.Feeder(path) as f:
        return sum(1 for _ in f.issue_loop(1))


def row(what, n, t, floor_t):
    (w, c), (fw, fc) = t, floor_t
    print("%-24s %7d nodes  wall %7.3f s (%7.0f nodes/s)  cpu %7.3f s (%7.0f nodes/s)"
          "  floor wall %6.3f s cpu %6.3f s  ratio(cpu) %5.1fx"
          % (what, n, w, n / w, c, n / c, fw, fc, c / fc))


def bench(label, path):
    print("== %s (%s)" % (label, path))
    n0, *tf = timed(lambda: floor_read(path))
    n1, *t = timed(lambda: read_all(path))
    assert n0 == n1, (n0, n1)
    row("Reader (Node copies)", n1, t, tf)
    if hasattr(lib, "chakra_feeder_next"):
        n0, *tf = timed(lambda: floor_feed(path))
        n1, *t = timed(lambda: feed_all(path))
        assert n0 == n1, (n0, n1)
        row("Feeder.issue_loop(1)", n1, t, tf)
    meta, nodes = C.read(path)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "w.0.et")

        def write():
            with C.Writer(out, overwrite=True) as w:
                w.write_metadata(meta)
                for x in nodes:
                    w.write_node(x)
            return len(nodes)

        def copy_raw():
            # floor: the same file copied by the C library alone
            r = C.Reader(path)
            w = ctypes.c_void_p()
            lib.chakra_writer_open(ctypes.byref(w), (out + ".raw").encode(), None)
            lib.chakra_writer_write_metadata(w, meta.version.encode(), None)
            b = lib.chakra_builder_new()
            p = ctypes.c_void_p()
            while lib.chakra_reader_next(r._h, ctypes.byref(p)) > 0:
                lib.chakra_builder_copy_node(b, p.value)
                lib.chakra_writer_write_node(w, b)
            lib.chakra_writer_finish(w)
            lib.chakra_writer_close(w)
            lib.chakra_builder_free(b)
            r.close()
            return len(nodes)
        lib.chakra_builder_copy_node.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        n0, *tf = timed(copy_raw)
        n1, *t = timed(write)
        row("Writer.write_node(Node)", n1, t, tf)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50000
    print("library %s, python %s" % (C.library_path, sys.version.split()[0]))
    bench("real trace", need(TRACE))
    with tempfile.TemporaryDirectory() as d:
        syn = os.path.join(d, "syn.0.et")
        subprocess.run([CHAKRA_EXE, "generate", "synthetic", str(n), "-o", syn], check=True,
                       env=tool_env(), stdout=subprocess.DEVNULL)
        bench("synthetic %d nodes" % n, syn)
    print("peak RSS %.1f MiB" % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


if __name__ == "__main__":
    main()
