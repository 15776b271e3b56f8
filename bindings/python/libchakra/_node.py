"""Python copies of nodes, attributes and metadata.

A C node view is valid only until the reader moves on (or the feeder
completes it), so every value is copied out when the Python object is made;
Node objects stay valid forever and can be kept, compared and written.
"""

import collections
import ctypes

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


def _cstr(ptr, n):
    return ctypes.string_at(ptr, n) if n else b""


class _Scratch:
    """Out-parameters reused within one node's conversion. Not shared
    between conversions: ctypes releases the GIL during each C call, so
    another thread could overwrite a shared set between call and read."""

    def __init__(self):
        self.n = ctypes.c_size_t()
        self.i = ctypes.c_int64()
        self.u = ctypes.c_uint64()
        self.d = ctypes.c_double()
        self.s = ctypes.c_void_p()
        self.np = ctypes.byref(self.n)
        self.ip = ctypes.byref(self.i)
        self.up = ctypes.byref(self.u)
        self.dp = ctypes.byref(self.d)
        self.sp = ctypes.byref(self.s)


def _check(rc, what):
    # The getters are chosen by kind, so a failure here is a library bug.
    if rc < 0:
        raise error(rc, "reading %s failed" % what)


def _scalar(_x, a, k):
    if k in E.REAL_KINDS:
        _check(lib.chakra_attr_double(a, _x.dp), "attribute")
        return _x.d.value
    if k == E.AttrKind.BOOL:
        _check(lib.chakra_attr_uint(a, _x.up), "attribute")
        return _x.u.value != 0
    if k in (E.AttrKind.STRING, E.AttrKind.BYTES):
        _check(lib.chakra_attr_string(a, _x.sp, _x.np), "attribute")
        b = _cstr(_x.s.value, _x.n.value)
        return _text(b) if k == E.AttrKind.STRING else b
    if k in E.SIGNED_BITS:
        _check(lib.chakra_attr_int(a, _x.ip), "attribute")
        return _x.i.value
    _check(lib.chakra_attr_uint(a, _x.up), "attribute")
    return _x.u.value


def _list(_x, a, k):
    n = lib.chakra_attr_list_len(a)
    out = []
    if k in E.REAL_KINDS:
        f, p, v = lib.chakra_attr_list_double, _x.dp, _x.d
    elif k in (E.AttrKind.STRING, E.AttrKind.BYTES):
        f = lib.chakra_attr_list_string
        for i in range(n):
            _check(f(a, i, _x.sp, _x.np), "attribute")
            b = _cstr(_x.s.value, _x.n.value)
            out.append(_text(b) if k == E.AttrKind.STRING else b)
        return out
    elif k in E.SIGNED_BITS:
        f, p, v = lib.chakra_attr_list_int, _x.ip, _x.i
    else:
        f, p, v = lib.chakra_attr_list_uint, _x.up, _x.u
    for i in range(n):
        _check(f(a, i, p), "attribute")
        out.append(v.value)
    if k == E.AttrKind.BOOL:
        out = [x != 0 for x in out]
    return out


def attr_from_c(a, _x=None):
    """Copy one chakra_attr into an Attr."""
    if _x is None:
        _x = _Scratch()
    name = _text(_cstr(lib.chakra_attr_name(a, _x.np), _x.n.value))
    doc = _text(_cstr(lib.chakra_attr_doc(a, _x.np), _x.n.value))
    k = lib.chakra_attr_kind_of(a)
    try:
        k = E.AttrKind(k)
    except ValueError:
        return Attr(name, k, None, doc)  # not produced by the decoder
    if k == E.AttrKind.NONE:
        value = None
    elif E.is_list_kind(k):
        value = _list(_x, a, E.AttrKind(k - 1))
    else:
        value = _scalar(_x, a, k)
    return Attr(name, k, value, doc)


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
        p = lib.chakra_metadata_version(m, _x.np)
        self.version = _text(_cstr(p, _x.n.value))
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
        self.name = _text(_cstr(L.chakra_node_name(p, _x.np), _x.n.value))
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
            ios.append({f: _text(_cstr(L.chakra_node_io(p, which, i, _x.np), _x.n.value))
                        for i, f in enumerate(_IO_FIELDS)})
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
