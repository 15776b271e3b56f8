# SPDX-License-Identifier: Apache-2.0
"""Python copies of nodes, attributes and metadata.

A C node view is valid only until the reader moves on (or the feeder
completes it), so every value is copied out when the Python object is made;
Node objects stay valid forever and can be kept, compared and written.
"""

import collections
import ctypes

from . import _lib
from ._lib import lib
from . import _enums as E
from ._errors import KindError, RangeError, error

Attr = collections.namedtuple("Attr", "name kind value doc")
Attr.__new__.__defaults__ = ("",)
Attr.__doc__ = ("One attribute: name, kind (AttrKind), value (Python value) and "
                "doc (doc_string, usually '').")

_IO_FIELDS = ("values", "shapes", "types")


def _text(b):
    # surrogateescape: bytes that are not UTF-8 survive a read/write round trip.
    return b.decode("utf-8", "surrogateescape")


class _Scratch:
    """Out-parameters reused within one node's conversion. Not shared
    between conversions: ctypes releases the GIL during each C call, so
    another thread could overwrite a shared set between call and read."""

    __slots__ = ("n", "i", "u", "d", "s", "np", "ip", "up", "dp", "sp")

    def __init__(self):
        self.n = ctypes.c_size_t()
        self.i = ctypes.c_int64()
        self.u = ctypes.c_uint64()
        self.d = ctypes.c_double()
        self.s = ctypes.c_char_p()
        self.np = ctypes.byref(self.n)
        self.ip = ctypes.byref(self.i)
        self.up = ctypes.byref(self.u)
        self.dp = ctypes.byref(self.d)
        self.sp = ctypes.byref(self.s)


def _full(b, n, name, *args):
    """b is what a char*-returning call gave (up to the first NUL), n the
    length it reported: re-read the whole string if it holds a NUL."""
    if b is not None and len(b) == n:
        return b
    return ctypes.string_at(_lib.raw(name)(*args), n) if n else b""


def _out_str(x):
    """The string an out-parameter call left in x.s / x.n."""
    b, n = x.s.value, x.n.value
    if b is not None and len(b) == n:
        return b
    return ctypes.string_at(ctypes.c_void_p.from_buffer(x.s).value, n) if n else b""


def _check(rc, what):
    # The getters are chosen by kind, so a failure here is a library bug.
    if rc < 0:
        raise error(rc, "reading %s failed" % what)


_KINDS = {int(k): k for k in E.AttrKind}
_K = E.AttrKind
# How each scalar kind is read: (scalar getter, list getter, out field).
_GET = {}
for _k in _K:
    if _k == _K.NONE or E.is_list_kind(_k):
        continue
    if _k in E.REAL_KINDS:
        _GET[_k] = (lib.chakra_attr_double, lib.chakra_attr_list_double, "d")
    elif _k in (_K.STRING, _K.BYTES):
        _GET[_k] = (lib.chakra_attr_string, lib.chakra_attr_list_string, "s")
    elif _k in E.SIGNED_BITS:
        _GET[_k] = (lib.chakra_attr_int, lib.chakra_attr_list_int, "i")
    else:  # unsigned and bool
        _GET[_k] = (lib.chakra_attr_uint, lib.chakra_attr_list_uint, "u")


def _value(x, a, k):
    """The Python value of attribute a of kind k (an AttrKind)."""
    if k == _K.NONE:
        return None
    islist = k % 2 == 0
    s = k - 1 if islist else k
    get, lget, f = _GET[s]
    if f == "s":
        text = s == _K.STRING
        if not islist:
            _check(get(a, x.sp, x.np), "attribute")
            b = _out_str(x)
            return _text(b) if text else b
        out = []
        for i in range(lib.chakra_attr_list_len(a)):
            _check(lget(a, i, x.sp, x.np), "attribute")
            b = _out_str(x)
            out.append(_text(b) if text else b)
        return out
    cell = getattr(x, f)
    ref = getattr(x, f + "p")
    if not islist:
        _check(get(a, ref), "attribute")
        v = cell.value
        return v != 0 if s == _K.BOOL else v
    out = []
    for i in range(lib.chakra_attr_list_len(a)):
        _check(lget(a, i, ref), "attribute")
        out.append(cell.value)
    return [v != 0 for v in out] if s == _K.BOOL else out


def attr_from_c(a, x=None):
    """Copy one chakra_attr into an Attr."""
    if x is None:
        x = _Scratch()
    L = lib
    name = _text(_full(L.chakra_attr_name(a, x.np), x.n.value, "chakra_attr_name", a, None))
    doc = L.chakra_attr_doc(a, x.np)
    doc = _text(_full(doc, x.n.value, "chakra_attr_doc", a, None)) if x.n.value else ""
    k = L.chakra_attr_kind_of(a)
    kind = _KINDS.get(k)
    if kind is None:
        return Attr(name, k, None, doc)  # not produced by the decoder
    return Attr(name, kind, _value(x, a, kind), doc)


class _AttrHolder:
    """Shared by Node and Metadata: attributes as a list and a dict."""

    __slots__ = ()

    @property
    def attrs(self):
        """Attribute name -> Python value (the first, if a name repeats)."""
        d = {}
        for a in self.attr_items:
            d.setdefault(a.name, a.value)
        return d

    def _find(self, name):
        for a in self.attr_items:
            if a.name == name:
                return a
        return None

    def attr_kind(self, name):
        """The AttrKind of attribute name, or None when absent."""
        a = self._find(name)
        return None if a is None else a.kind

    def attr(self, name, default=None):
        a = self._find(name)
        return default if a is None else a.value


class Metadata(_AttrHolder):
    """The file's GlobalMetadata: version string and attributes."""

    __slots__ = ("version", "attr_items")

    def __init__(self, version="", attrs=None):
        self.version = version
        self.attr_items = list(attrs or [])

    @classmethod
    def _from_c(cls, m):
        self = cls.__new__(cls)
        _x = _Scratch()
        b = lib.chakra_metadata_version(m, _x.np)
        self.version = _text(_full(b, _x.n.value, "chakra_metadata_version", m, None))
        self.attr_items = [attr_from_c(lib.chakra_metadata_attr_at(m, i), _x)
                           for i in range(lib.chakra_metadata_attr_count(m))]
        return self

    def __repr__(self):
        return "Metadata(version=%r, attrs=%r)" % (self.version, self.attrs)


class Node(_AttrHolder):
    """One trace node, copied out of the library (valid forever).

    Fields: id, name, type (int; type_name gives "COMP_NODE" etc.),
    data_deps, ctrl_deps (lists of ids), start_time_micros, duration_micros,
    inputs, outputs (dict with "values", "shapes", "types", or None when the
    node has no such IOInfo), attr_items (list of Attr), attrs (dict
    name -> value). index and offset locate a node read from a file (its
    0-based position and the byte offset of its message); None otherwise.
    """

    __slots__ = ("id", "name", "type", "data_deps", "ctrl_deps", "start_time_micros",
                 "duration_micros", "inputs", "outputs", "attr_items", "index", "offset")

    def __init__(self, id, name="", type=E.NodeType.COMP_NODE, data_deps=(), ctrl_deps=(),
                 start_time_micros=0, duration_micros=0, inputs=None, outputs=None,
                 attrs=None):
        # Local import: the writer module imports this one.
        from ._encode import attr_items
        self.id = id
        self.name = name
        self.type = E.node_type(type)
        self.data_deps = list(data_deps)
        self.ctrl_deps = list(ctrl_deps)
        self.start_time_micros = start_time_micros
        self.duration_micros = duration_micros
        self.inputs = dict(inputs) if inputs is not None else None
        self.outputs = dict(outputs) if outputs is not None else None
        self.attr_items = attr_items(attrs)
        self.index = None
        self.offset = None

    @classmethod
    def _from_c(cls, p):
        self = cls.__new__(cls)
        L = lib
        _x = _Scratch()
        self.id = L.chakra_node_id(p)
        self.name = _text(_full(L.chakra_node_name(p, _x.np), _x.n.value, "chakra_node_name",
                                p, None))
        self.type = L.chakra_node_type_of(p)
        n = L.chakra_node_data_dep_count(p)
        self.data_deps = L.chakra_node_data_deps(p)[:n] if n else []
        n = L.chakra_node_ctrl_dep_count(p)
        self.ctrl_deps = L.chakra_node_ctrl_deps(p)[:n] if n else []
        self.start_time_micros = L.chakra_node_start_time_micros(p)
        self.duration_micros = L.chakra_node_duration_micros(p)
        ios = []
        for which in (0, 1):
            if not L.chakra_node_has_io(p, which):
                ios.append(None)
                continue
            io = {}
            for i, f in enumerate(_IO_FIELDS):
                b = L.chakra_node_io(p, which, i, _x.np)
                io[f] = _text(_full(b, _x.n.value, "chakra_node_io", p, which, i, None))
            ios.append(io)
        self.inputs, self.outputs = ios
        self.attr_items = [attr_from_c(L.chakra_node_attr_at(p, i), _x)
                           for i in range(L.chakra_node_attr_count(p))]
        self.index = L.chakra_node_index(p)
        self.offset = L.chakra_node_offset(p)
        return self

    @property
    def type_name(self):
        """"COMP_NODE", "COMM_COLL_NODE", ...; None for an unknown value."""
        return E.node_type_name(self.type)

    def __eq__(self, other):
        if not isinstance(other, Node):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self.__slots__
                   if f not in ("index", "offset"))

    __hash__ = None

    def __repr__(self):
        return "Node(id=%d, name=%r, type=%s)" % (self.id, self.name,
                                                 self.type_name or self.type)

    # ---- well-known attributes (et-format.md). Real files disagree on
    # the integer kind, so any integer kind is accepted, as in the C API;
    # None when absent; KindError for a non-integer kind, RangeError when
    # the value does not fit (a negative size).

    def _int_attr(self, name, unsigned=False):
        a = self._find(name)
        if a is None:
            return None
        if E.is_list_kind(a.kind) or not E.is_int_kind(a.kind):
            raise KindError("node %d: attribute %s has kind %s, expected an integer"
                            % (self.id, name, E.attr_kind_name(a.kind) or a.kind), -10)
        v = int(a.value)
        if unsigned and v < 0:
            raise RangeError("node %d: attribute %s is %d, expected a non-negative value"
                             % (self.id, name, v), -11)
        return v

    @property
    def is_cpu_op(self):
        v = self._int_attr("is_cpu_op")
        return None if v is None else v != 0

    @property
    def num_ops(self):
        return self._int_attr("num_ops", True)

    @property
    def tensor_size(self):
        return self._int_attr("tensor_size", True)

    @property
    def comm_type(self):
        """CollectiveCommType as an int (CommType(v) for the enum)."""
        return self._int_attr("comm_type")

    @property
    def comm_type_name(self):
        v = self.comm_type
        return None if v is None else E.comm_type_name(v)

    @property
    def comm_size(self):
        return self._int_attr("comm_size", True)

    @property
    def comm_priority(self):
        return self._int_attr("comm_priority")

    @property
    def comm_src(self):
        return self._int_attr("comm_src")

    @property
    def comm_dst(self):
        return self._int_attr("comm_dst")

    @property
    def comm_tag(self):
        return self._int_attr("comm_tag")

    @property
    def pg_name(self):
        a = self._find("pg_name")
        if a is None:
            return None
        if a.kind == E.AttrKind.BYTES:
            return _text(a.value)
        if a.kind != E.AttrKind.STRING:
            raise KindError("node %d: attribute pg_name has kind %s, expected a string"
                            % (self.id, E.attr_kind_name(a.kind) or a.kind), -10)
        return a.value

    @property
    def involved_dim(self):
        """List of bools, or None."""
        a = self._find("involved_dim")
        if a is None:
            return None
        if not E.is_list_kind(a.kind) or not E.is_int_kind(a.kind):
            raise KindError("node %d: attribute involved_dim has kind %s, expected a "
                            "bool list" % (self.id, E.attr_kind_name(a.kind) or a.kind), -10)
        return [x != 0 for x in a.value]
