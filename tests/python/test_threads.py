# SPDX-License-Identifier: Apache-2.0
"""Python must raise, not crash: one Reader iterated
from four threads, one Feeder pulled from two, a feeder closed from inside
its own ready callback, a re-entrant call from a read callback."""

import io
import threading
import unittest

import libchakra as C
from libchakra import _lib
from pyhelp import TRACE, need


def trace(n):
    buf = io.BytesIO()
    with C.Writer(buf) as w:
        w.write_metadata("0.0.4")
        for i in range(1, n + 1):
            w.write_node(id=i, name="n%d" % i, data_deps=[i - 1] if i > 1 else [])
    return buf.getvalue()


class ThreadsTest(unittest.TestCase):
    def test_reader_from_four_threads(self):
        # ctypes drops the GIL during each C call: unserialized, two
        # threads were inside chakra_reader_next at once (a segfault).
        for _ in range(3):
            seen = []
            lock = threading.Lock()
            with C.Reader(need(TRACE)) as r:
                def work():
                    mine = [n.id for n in r]
                    with lock:
                        seen.extend(mine)
                ts = [threading.Thread(target=work) for _ in range(4)]
                for t in ts:
                    t.start()
                for t in ts:
                    t.join()
                self.assertEqual(r.node_count, 3664)
            self.assertEqual(len(seen), 3664)
            self.assertEqual(len(set(seen)), 3664)

    @unittest.skipUnless(_lib.has_feeder, "no feeder")
    def test_feeder_from_two_threads(self):
        data = trace(5000)
        got = []
        lock = threading.Lock()
        with C.Feeder(data, order="file") as f:
            def work():
                while True:
                    n = f.next()
                    if n is None:
                        if not f.has_more:
                            return
                        continue
                    with lock:
                        got.append(n.id)
                    f.complete(n.id)
            ts = [threading.Thread(target=work) for _ in range(2)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            self.assertEqual(f.completed_count, 5000)
        self.assertEqual(sorted(got), list(range(1, 5001)))

    @unittest.skipUnless(_lib.has_feeder, "no feeder")
    def test_close_inside_ready_callback(self):
        # Closing inside the callback freed the feeder under
        # chakra_feeder_next (a use-after-free); now the close takes effect
        # when the callback returns, and later calls raise.
        data = trace(10)
        for at in (1, 5, 10):
            calls = []

            def ready(node, f, at=at, calls=calls):
                calls.append(node.id)
                if len(calls) == at:
                    f.close()
                    with self.assertRaises(C.StateError):
                        f.next()
                    return
                f.complete(node.id)

            f = C.Feeder(data, ready=ready)
            f.drive()
            self.assertEqual(len(calls), at)
            with self.assertRaises(C.StateError):
                f.next()
            f.close()  # again: harmless

    def test_reentrant_call_from_read_callback_raises(self):
        data = open(need(TRACE), "rb").read()
        holder = {}

        class Sneaky(io.RawIOBase):
            def __init__(self):
                self.pos = 0
                self.poked = False

            def readable(self):
                return True

            def readinto(self, b):
                if "r" in holder and not self.poked:
                    self.poked = True
                    holder["r"].next_node()  # back into the busy reader
                n = min(len(b), len(data) - self.pos)
                b[:n] = data[self.pos:self.pos + n]
                self.pos += n
                return n

        src = Sneaky()
        r = C.Reader(src)
        holder["r"] = r
        with self.assertRaises(C.ChakraError) as cm:
            for _ in r:
                pass
        self.assertIsInstance(cm.exception.__cause__, C.StateError)
        r.close()


if __name__ == "__main__":
    unittest.main()
