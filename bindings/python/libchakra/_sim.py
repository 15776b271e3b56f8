# SPDX-License-Identifier: Apache-2.0
"""sim(): the `chakra sim` simulator (libchakra-sim) from Python.

libchakra-sim is a second shared library next to libchakra (it uses
libyaml and YAJL, which the core does not). It is loaded on the first call
to sim(), so `import libchakra` works without it. Search order:
LIBCHAKRA_SIM_PATH (a file path; when set nothing else is tried), a
libchakra-sim.so* next to the loaded libchakra (or in its sim/ folder, the
build tree's layout), next to the package, the install libdir, then
ctypes.util.find_library("chakra-sim").
"""

import collections
import ctypes
import json
import os

from . import _lib, _modlib
from ._errors import ChakraError, error

c_int, c_uint, c_uint32, c_uint64 = ctypes.c_int, ctypes.c_uint, ctypes.c_uint32, ctypes.c_uint64
c_double, c_size_t, c_void_p, c_char_p = ctypes.c_double, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p
P = ctypes.POINTER

MAX_DIMS = 8
OPTIONS_VERSION = 3
MODELS = {"unaware": 0, "aware": 1}
DEPS = {None: 0, "data": 1, "ctrl": 2, "both": 3}
RULES = {"auto": 0, "astra-sim": 1, "model": 2}
DURATIONS = {None: 0, "micros": 1, "nanos": 2}
ERR_LEN = 1024


# Mirrors of include/chakra/experimental/sim.h (experimental: kept in step).
class _Network(ctypes.Structure):
    _fields_ = [("ndims", c_int), ("topo", c_int * MAX_DIMS), ("size", c_uint32 * MAX_DIMS),
                ("bw", c_double * MAX_DIMS), ("latency", c_double * MAX_DIMS),
                ("npus", c_uint32), ("stride", c_uint32 * MAX_DIMS)]


class _System(ctypes.Structure):
    _fields_ = [("lifo", c_int), ("endpoint_delay", c_uint64), ("active_chunks", c_uint32),
                ("splits", c_uint32), ("n_impl", c_int * 4), ("impl", (c_int * MAX_DIMS) * 4),
                ("local_bw_aware", c_int), ("local_mem_bw", c_double), ("boost_mode", c_int),
                ("roofline", c_int), ("peak_perf", c_double)]


class _Groups(ctypes.Structure):
    _fields_ = [("g", c_void_p), ("n", c_size_t)]


class _NpuResult(ctypes.Structure):
    _fields_ = [("finish", c_uint64), ("compute", c_uint64), ("comm_busy", c_uint64),
                ("nodes", c_uint64), ("cpu", c_uint64)]


_EVENT_CB = ctypes.CFUNCTYPE(None, c_void_p, c_int, c_uint32, c_uint64, c_void_p)
_SPAN_CB = ctypes.CFUNCTYPE(None, c_void_p, c_uint32, c_int, c_void_p, c_uint64, c_uint64)
_FINISH_CB = ctypes.CFUNCTYPE(None, c_void_p, c_uint32, P(_NpuResult))
_PROGRESS_CB = ctypes.CFUNCTYPE(None, c_void_p, c_uint64)


class _Options(ctypes.Structure):
    _fields_ = [("version", c_uint), ("model", c_int), ("groups", P(_Groups)),
                ("compute_scale", P(c_double)), ("start_delay", P(c_uint64)),
                ("deps", c_int), ("window", c_uint64), ("data", c_void_p),
                ("event_cb", _EVENT_CB), ("span_cb", _SPAN_CB), ("finish_cb", _FINISH_CB),
                ("progress_cb", _PROGRESS_CB), ("memory", c_uint64), ("rules", c_int),
                ("durations", c_int), ("streams", c_int)]


_PROTOS = {
    "chakra_sim_network_load": (c_int, [P(_Network), c_char_p, c_char_p, c_size_t]),
    "chakra_sim_network_parse": (c_int, [P(_Network), c_char_p, c_char_p, c_size_t, c_char_p,
                                         c_size_t]),
    "chakra_sim_system_load": (c_int, [P(_System), c_char_p, c_char_p, c_size_t]),
    "chakra_sim_system_parse": (c_int, [P(_System), c_char_p, c_char_p, c_size_t, c_char_p,
                                        c_size_t]),
    "chakra_sim_groups_load": (c_int, [P(_Groups), c_char_p, c_uint32, c_char_p, c_size_t]),
    "chakra_sim_groups_parse": (c_int, [P(_Groups), c_char_p, c_char_p, c_size_t, c_uint32,
                                        c_char_p, c_size_t]),
    "chakra_sim_groups_free": (None, [P(_Groups)]),
    "chakra_sim_new": (c_int, [P(c_void_p), P(_Network), P(_System), P(_Options)]),
    "chakra_sim_free": (None, [c_void_p]),
    "chakra_sim_run_prefix": (c_int, [c_void_p, c_char_p]),
    "chakra_sim_errmsg": (c_char_p, [c_void_p]),
    "chakra_sim_warning": (c_char_p, [c_void_p]),
    "chakra_sim_npus": (c_uint32, [c_void_p]),
    "chakra_sim_finish": (c_uint64, [c_void_p]),
    "chakra_sim_npu": (P(_NpuResult), [c_void_p, c_uint32]),
    "chakra_sim_nodes": (c_uint64, [c_void_p]),
    "chakra_sim_events": (c_uint64, [c_void_p]),
    "chakra_sim_rules_used": (c_int, [c_void_p]),
}

def _load():
    return _modlib.load("chakra-sim", "LIBCHAKRA_SIM_PATH", "sim", _PROTOS, "the simulator")


NpuResult = collections.namedtuple(
    "NpuResult", "npu finish_cycles compute_cycles exposed_comm_cycles comm_busy_cycles nodes "
    "cpu_cycles")


class SimResult:
    """What sim() returns: finish_cycles (latest NPU), nodes, events, npus,
    a list of NpuResult (one per NPU, as `chakra sim --json`), warning
    (str or None: e.g. nodes of a type outside NodeType, taken as no time)
    and rules ("astra-sim" or "model": the rules the run followed)."""

    def __init__(self, finish_cycles, nodes, events, npus, warning=None, rules=None):
        self.finish_cycles = finish_cycles
        self.nodes = nodes
        self.events = events
        self.npus = npus
        self.warning = warning
        self.rules = rules

    def __len__(self):
        return len(self.npus)

    def __iter__(self):
        return iter(self.npus)

    def __getitem__(self, i):
        return self.npus[i]

    def __repr__(self):
        return "SimResult(finish_cycles=%d, npus=%d, nodes=%d)" % (
            self.finish_cycles, len(self.npus), self.nodes)


def _npu_result(i, r):
    exposed = r.finish - r.compute if r.finish > r.compute else 0
    return NpuResult(i, r.finish, r.compute, exposed, r.comm_busy, r.nodes, r.cpu)


def _network_text(d):
    """A network dict as ASTRA-sim YAML (flow lists), for the C parser."""
    lines = []
    for k, v in d.items():
        vals = v if isinstance(v, (list, tuple)) else [v]
        lines.append("%s: [ %s ]" % (k, ", ".join(str(x) for x in vals)))
    return "\n".join(lines) + "\n"


def _config(kind, spec, parse, load, struct, extra=()):
    """Fill a config struct from a path (str / PathLike) or a dict."""
    err = ctypes.create_string_buffer(ERR_LEN)
    if isinstance(spec, dict):
        text = (_network_text(spec) if kind == "network" else json.dumps(spec)).encode()
        rc = parse(ctypes.byref(struct), ("<%s dict>" % kind).encode(), text, len(text),
                   *extra, err, ERR_LEN)
    elif isinstance(spec, (str, bytes, os.PathLike)):
        rc = load(ctypes.byref(struct), os.fsencode(spec), *extra, err, ERR_LEN)
    else:
        raise TypeError("%s must be a path or a dict, not %s" % (kind, type(spec).__name__))
    if rc < 0:
        raise error(rc, err.value)


def _per_npu(name, value, npus, ctype, check):
    """A scalar (every NPU), a sequence (one per NPU) or a {rank: value}
    dict (the others default), as a C array; None stays NULL."""
    if value is None:
        return None
    arr = (ctype * npus)()
    default = 1.0 if ctype is c_double else 0
    for i in range(npus):
        arr[i] = default
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, (list, tuple)):
        if len(value) != npus:
            raise ValueError("%s: %d entries for %d NPUs" % (name, len(value), npus))
        items = enumerate(value)
    else:
        items = ((i, value) for i in range(npus))
    for r, v in items:
        if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r < npus:
            raise ValueError("%s: rank %r is not in 0..%d" % (name, r, npus - 1))
        arr[r] = check(v)
    return arr


def _scale(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1e9:
        raise ValueError("compute_scale: factor %r is not a number in 0..1e9" % (v,))
    return float(v)


def _delay(v):
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 1 << 64:
        raise ValueError("start_delay: %r is not a cycle count in 0..2**64-1" % (v,))
    return v


def sim(workload, network, system, *, model="unaware", comm_group=None, compute_scale=None,
        start_delay=None, deps=None, window=0, memory=0, rules="auto", durations=None,
        streams=False, on_finish=None, on_event=None):
    """Simulate workload PREFIX (PREFIX.0.et .. PREFIX.{N-1}.et) as `chakra sim`.

    network, system, comm_group: a path to ASTRA-sim's YAML / JSON file, or a
    dict with the same keys (e.g. {"topology": ["Ring"], "npus_count": [8],
    "bandwidth": [50], "latency": [500]}). model: "unaware" or "aware".
    compute_scale: a factor for every NPU, a list, or {rank: factor};
    start_delay: {rank: cycles} or a list. deps: "data", "ctrl" or "both"
    (None: as the rules say); rules: "auto", "astra-sim" or "model"
    (docs/sim.md: auto is ASTRA-sim's for traces chakra convert wrote);
    durations: None, "micros" or "nanos"; streams: a slot per CPU thread
    and GPU stream under ASTRA-sim's rules;
    window: nodes each feeder reads ahead (0: from the memory budget);
    memory: the budget in bytes (0: the library's default, 64 MiB).
    on_finish(NpuResult) is called as each NPU completes its last node;
    on_event(what, npu, cycle, node_id) for every node issue ("issue") and
    completion ("done"). Returns a SimResult; raises ChakraError (ConfigError
    for a bad configuration) with the library's message.
    """
    if model not in MODELS:
        raise ValueError("model must be one of %s, not %r" % (sorted(MODELS), model))
    for name, v, table in (("deps", deps, DEPS), ("rules", rules, RULES),
                           ("durations", durations, DURATIONS)):
        if v not in table:
            raise ValueError("%s must be one of %s, not %r" % (
                name, sorted(k for k in table if k is not None), v))
    for name, v in (("window", window), ("memory", memory)):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 1 << 64:
            raise ValueError("%s must be an int in 0..2**64-1, not %r" % (name, v))
    if not isinstance(workload, (str, bytes, os.PathLike)):
        raise TypeError("workload must be a path prefix, not %s" % type(workload).__name__)
    lib = _load()
    net, sysc, groups = _Network(), _System(), _Groups()
    _config("network", network, lib.chakra_sim_network_parse, lib.chakra_sim_network_load, net)
    _config("system", system, lib.chakra_sim_system_parse, lib.chakra_sim_system_load, sysc)
    have_groups = comm_group is not None
    if have_groups:
        _config("comm_group", comm_group, lib.chakra_sim_groups_parse,
                lib.chakra_sim_groups_load, groups, (net.npus,))
    handle = c_void_p()
    try:
        npus = net.npus
        scale = _per_npu("compute_scale", compute_scale, npus, c_double, _scale)
        delay = _per_npu("start_delay", start_delay, npus, c_uint64, _delay)
        o = _Options()
        o.version = OPTIONS_VERSION
        o.model = MODELS[model]
        o.groups = ctypes.pointer(groups) if have_groups else None
        o.compute_scale = scale
        o.start_delay = delay
        o.deps = DEPS[deps]
        o.window = window
        o.memory = memory
        o.rules = RULES[rules]
        o.durations = DURATIONS[durations]
        o.streams = 1 if streams else 0
        raised = []

        def guard(fn):
            # An exception cannot cross the C engine: keep the first, raise it
            # after the run.
            def call(*a):
                if raised:
                    return
                try:
                    fn(*a)
                except BaseException as e:  # noqa: B902 (re-raised below)
                    raised.append(e)
            return call

        if on_finish is not None:
            o.finish_cb = _FINISH_CB(guard(lambda _d, i, r: on_finish(_npu_result(i, r[0]))))
        if on_event is not None:
            node_id = _lib.lib.chakra_node_id
            o.event_cb = _EVENT_CB(guard(lambda _d, what, i, cyc, n: on_event(
                "issue" if what == 0 else "done", i, cyc, node_id(n))))
        rc = lib.chakra_sim_new(ctypes.byref(handle), ctypes.byref(net), ctypes.byref(sysc),
                                ctypes.byref(o))
        if rc == 0:
            rc = lib.chakra_sim_run_prefix(handle, os.fsencode(workload))
        if raised:
            raise raised[0]
        if rc < 0:
            raise error(rc, lib.chakra_sim_errmsg(handle) if handle else None)
        n = lib.chakra_sim_npus(handle)
        res = [_npu_result(i, lib.chakra_sim_npu(handle, i)[0]) for i in range(n)]
        w = lib.chakra_sim_warning(handle)
        return SimResult(lib.chakra_sim_finish(handle), lib.chakra_sim_nodes(handle),
                         lib.chakra_sim_events(handle), res,
                         w.decode("utf-8", "replace") if w else None,
                         "astra-sim" if lib.chakra_sim_rules_used(handle) == 1 else "model")
    finally:
        if handle:
            lib.chakra_sim_free(handle)
        if have_groups:
            lib.chakra_sim_groups_free(ctypes.byref(groups))
