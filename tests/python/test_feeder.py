# SPDX-License-Identifier: Apache-2.0
"""Feeder and Workload: reference order on real data, control
dependencies, diagnostics on crafted traces, both calling styles."""

import io
import os
import unittest

import libchakra as C
from libchakra import _lib
from pyhelp import TRACE, ORDER_V1, SHARED, need


def trace(nodes):
    """Bytes of a crafted trace: nodes are (id, data_deps, ctrl_deps)."""
    buf = io.BytesIO()
    with C.Writer(buf) as w:
        w.write_metadata("0.0.4")
        for id, data, ctrl in nodes:
            w.write_node(id=id, name="n%d" % id, data_deps=data, ctrl_deps=ctrl,
                         attrs={"num_ops": id * 10})
    return buf.getvalue()


def drain(f, inflight=1):
    return [n.id for n in f.issue_loop(inflight)]


@unittest.skipUnless(_lib.has_feeder, "libchakra built without the feeder: %s"
                     % _lib.feeder_missing)
class FeederTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(need(ORDER_V1)) as f:
            cls.order = [int(x) for x in f.read().split()]
        need(TRACE)

    def test_reference_order_on_real_trace(self):
        self.assertEqual(len(self.order), 3664)
        with C.Feeder(TRACE) as f:
            self.assertEqual(f.metadata.attrs["schema"], "1.0.1")
            self.assertEqual(drain(f), self.order)
            self.assertFalse(f.has_more)
            self.assertEqual(f.issued_count, 3664)

    def test_pull_loop_by_hand_and_node_fields(self):
        _, read_nodes = C.read(TRACE)
        by_id = {n.id: n for n in read_nodes}
        got = []
        with C.Feeder(TRACE, deps="data", order="id") as f:
            while True:
                n = f.next()
                if n is None:
                    break
                self.assertEqual(f.inflight_count, 1)
                # A feeder node carries every field, as the reader's does.
                self.assertEqual(n, by_id[n.id])
                got.append(n.id)
                f.complete(n.id)
            self.assertFalse(f.has_more)
        self.assertEqual(got, self.order)

    def test_deps_both_feeds_real_trace_to_the_end(self):
        with C.Feeder(TRACE, deps="both") as f:
            ids = drain(f, inflight=4)
            self.assertGreater(f.warning_count, 0)
        self.assertEqual(sorted(ids), sorted(self.order))

    def test_inflight_window_on_real_trace(self):
        with C.Feeder(TRACE) as f:
            self.assertEqual(sorted(drain(f, inflight=16)), sorted(self.order))

    def test_control_dependency_holds_node(self):
        data = trace([(1, [], []), (2, [], [1])])
        with C.Feeder(data, deps="both") as f:
            a = f.next()
            self.assertEqual(a.id, 1)
            self.assertIsNone(f.next())  # 2 waits for its control parent
            self.assertTrue(f.has_more)
            self.assertEqual(f.lookup(2).id, 2)
            f.complete(1)
            self.assertEqual(f.next().id, 2)
            f.complete(2)
            self.assertIsNone(f.next())
            self.assertFalse(f.has_more)
        with C.Feeder(data, deps="data") as f:  # the reference ignores it
            self.assertEqual([f.next().id, f.next().id], [1, 2])

    def test_order_file_vs_id(self):
        data = trace([(5, [], []), (3, [], []), (9, [5], [])])
        with C.Feeder(data, order="id") as f:
            self.assertEqual(drain(f), [3, 5, 9])
        with C.Feeder(data, order="file") as f:
            self.assertEqual(drain(f), [5, 3, 9])

    def test_parent_later_in_file(self):
        data = trace([(1, [2], []), (2, [], [])])
        with C.Feeder(data) as f:
            self.assertEqual(drain(f), [2, 1])

    def test_missing_parent_is_named(self):
        data = trace([(1, [], []), (2, [99], [])])
        with C.Feeder(data) as f:
            with self.assertRaises(C.MissingDependencyError) as cm:
                drain(f)
        msg = str(cm.exception)
        self.assertIn("2", msg)
        self.assertIn("99", msg)
        self.assertEqual(cm.exception.code, -13)

    def test_cycle_is_named(self):
        data = trace([(1, [], []), (2, [3], []), (3, [2], [])])
        with C.Feeder(data) as f:
            with self.assertRaises(C.CycleError) as cm:
                drain(f)
        self.assertIn("2", str(cm.exception))
        self.assertIn("3", str(cm.exception))

    def test_duplicate_id_and_self_dependency(self):
        with self.assertRaises(C.DuplicateIdError):
            with C.Feeder(trace([(1, [], []), (1, [], [])])) as f:
                drain(f)
        with self.assertRaises(C.SelfDependencyError):
            with C.Feeder(trace([(1, [1], [])])) as f:
                drain(f)

    def test_strict_control_deps(self):
        data = trace([(1, [], [77]), (2, [], [2])])
        with C.Feeder(data, deps="both") as f:
            self.assertEqual(drain(f), [1, 2])
            self.assertEqual(f.warning_count, 2)
        with self.assertRaises(C.ChakraError):
            with C.Feeder(data, deps="both", strict=True) as f:
                drain(f)

    def test_counts(self):
        data = trace([(1, [], []), (2, [1, 1], []), (3, [1], [])])
        with C.Feeder(data) as f:
            self.assertEqual(f.next().id, 1)
            self.assertEqual((f.issued_count, f.inflight_count, f.completed_count), (1, 1, 0))
            f.complete(1)
            self.assertEqual((f.ready_count, f.completed_count), (2, 1))
            self.assertEqual(drain(f), [2, 3])
            self.assertEqual((f.issued_count, f.completed_count, f.held_count), (3, 3, 0))
            self.assertEqual(f.duplicate_dep_count, 1)
            self.assertEqual(f.cycle_break_count, 0)

    def test_complete_errors_push_back_lookup(self):
        data = trace([(1, [], []), (2, [1], [])])
        with C.Feeder(data) as f:
            with self.assertRaises(C.StateError) as cm:
                f.complete(1)  # never issued
            self.assertIn("not in flight", str(cm.exception))
            n = f.next()
            self.assertEqual(n.attrs, {"num_ops": 10})
            f.push_back(n.id)
            self.assertEqual(f.inflight_count, 0)
            self.assertEqual(f.next().id, 1)
            self.assertIsNone(f.next())
            f.complete(1)
            with self.assertRaises(C.StateError):
                f.complete(1)  # twice
            self.assertIsNone(f.lookup(1))
            self.assertEqual(f.ready_count, 1)
            self.assertEqual(f.next().id, 2)
            f.complete(2)
            self.assertFalse(f.has_more)

    def test_callback_style(self):
        data = trace([(1, [], []), (2, [1], []), (3, [1], []), (4, [2, 3], [])])
        seen = []
        f = C.Feeder(data, ready=lambda node, feeder: seen.append(node.id))
        f.drive()
        self.assertEqual(seen, [1])
        f.complete(1)
        self.assertEqual(sorted(seen), [1, 2, 3])
        f.complete(2)
        f.complete(3)
        self.assertEqual(seen[-1], 4)
        f.complete(4)
        self.assertFalse(f.has_more)
        with self.assertRaises(C.StateError):
            list(f.issue_loop())
        f.close()

        def boom(node, feeder):
            raise KeyError("from callback %d" % node.id)
        with C.Feeder(data, ready=boom) as f:
            with self.assertRaises(KeyError):
                f.drive()

    def test_budgets(self):
        # Every node needs node 2000, the last in the file: all are held
        # while the feeder looks for it.
        nodes = [(i, [2000], []) for i in range(2000)] + [(2000, [], [])]
        data = trace(nodes)
        # (from a stream: a buffer's nodes are not copies, nothing is held)
        with C.Feeder(io.BytesIO(data), max_memory=65536) as f:
            self.assertEqual(drain(f), [2000] + list(range(2000)))
        with self.assertRaises(C.TooBigError) as cm:
            with C.Feeder(io.BytesIO(data), max_memory=16384) as f:
                drain(f)
        self.assertIn("budget of 16384 bytes (max_memory", str(cm.exception))
        # window_bytes bounds the look-ahead only: every node still comes out
        with C.Feeder(io.BytesIO(data), window_bytes=1) as f:
            self.assertEqual(sorted(drain(f)), list(range(2001)))
        # one node's decoded size
        with self.assertRaises(C.TooBigError):
            with C.Feeder(data, max_node_memory=8) as f:
                drain(f)

    def test_bad_options(self):
        for kw in ({"deps": "all"}, {"order": "random"}, {"window": -1}, {"window_bytes": -1},
                   {"max_memory": 1 << 64}, {"max_node_memory": "1MB"}, {"max_memory": True}):
            with self.assertRaises(ValueError):
                C.Feeder(TRACE, **kw)
        with self.assertRaises(C.ChakraIOError):
            C.Feeder(os.path.join(SHARED, "no-such-trace.0.et"))


@unittest.skipUnless(_lib.has_feeder, "libchakra built without the feeder")
class WorkloadTest(unittest.TestCase):
    def test_astra_sim_microbenchmark(self):
        d = os.path.join(SHARED, "data", "astra-sim", "microbenchmarks", "all_reduce",
                         "4npus_1MB")
        need(os.path.join(d, "all_reduce.0.et"))
        with C.Workload(os.path.join(d, "all_reduce")) as w:
            self.assertEqual(len(w), 4)
            for rank, f in enumerate(w):
                self.assertEqual(f.rank, rank)
                _, nodes = C.read(os.path.join(d, "all_reduce.%d.et" % rank))
                issued = list(f.issue_loop())
                self.assertEqual(sorted(n.id for n in issued), sorted(n.id for n in nodes))
                coll = [n for n in issued if n.type == C.NodeType.COMM_COLL_NODE]
                self.assertTrue(coll)
                self.assertEqual(coll[0].comm_type, C.CommType.ALL_REDUCE)
        with self.assertRaises(C.StateError):
            w[0].next()

    def test_callback_style_per_rank(self):
        d = os.path.join(SHARED, "data", "astra-sim", "microbenchmarks", "all_gather",
                         "8npus_1MB")
        need(os.path.join(d, "all_gather.0.et"))
        seen = {}
        w = C.Workload(os.path.join(d, "all_gather"),
                       ready=lambda n, f: seen.setdefault(f.rank, []).append(n.id))
        self.assertEqual(len(w), 8)
        for f in w:
            f.drive()
            done = 0
            while done < len(seen.get(f.rank, [])):  # complete in issue order
                f.complete(seen[f.rank][done])
                done += 1
            self.assertFalse(f.has_more)
            _, nodes = C.read(os.path.join(d, "all_gather.%d.et" % f.rank))
            self.assertEqual(sorted(seen[f.rank]), sorted(n.id for n in nodes))
        w.close()

    def test_missing_workload(self):
        with self.assertRaises(C.ChakraError):
            C.Workload(os.path.join(SHARED, "no-such-workload"))


if __name__ == "__main__":
    unittest.main()
