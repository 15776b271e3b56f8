# SPDX-License-Identifier: Apache-2.0
"""Python values -> attributes and builder calls, with kind inference.

Values are checked against their kind here, before they reach the C
builder, because the builder stores an int32 attribute by truncation: a
value that does not fit must be an error, never a silently different
number in the file.
"""

import ctypes
import math
import struct

from ._lib import lib
from . import _enums as E
from ._errors import InvalidArgumentError, RangeError, error
from ._node import Attr

K = E.AttrKind
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1


def _infer_scalar(v):
    if isinstance(v, bool):
        return K.BOOL
    if isinstance(v, int):
        if _INT64_MIN <= v <= _INT64_MAX:
            return K.INT64
        if 0 <= v <= _UINT64_MAX:
            return K.UINT64
        raise RangeError("integer %d fits neither int64 nor uint64" % v, -11)
    if isinstance(v, float):
        return K.DOUBLE
    if isinstance(v, str):
        return K.STRING
    if isinstance(v, (bytes, bytearray, memoryview)):
        return K.BYTES
    if v is None:
        return K.NONE
    raise TypeError("cannot infer an attribute kind for %s value %r"
                    % (type(v).__name__, v))


def infer_kind(value):
    """The kind a dict-style attribute value is written with: bool -> bool,
    int -> int64 (uint64 above INT64_MAX), float -> double, str -> string,
    bytes -> bytes, None -> none, and lists of those (a list mixing ints and
    floats -> double_list). An empty list has no kind to infer: give it as
    (name, kind, value)."""
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError("cannot infer the kind of an empty list; pass "
                             "(name, kind, []) with an explicit kind")
        kinds = {_infer_scalar(x) for x in value}
        if kinds <= {K.INT64, K.UINT64}:
            return K.UINT64_LIST if K.UINT64 in kinds else K.INT64_LIST
        if kinds <= {K.INT64, K.UINT64, K.DOUBLE}:
            return K.DOUBLE_LIST
        if len(kinds) == 1 and K.NONE not in kinds:
            return K(kinds.pop() + 1)
        raise TypeError("list mixes values of kinds %s; pass an explicit kind"
                        % sorted(E.attr_kind_name(k) for k in kinds))
    return _infer_scalar(value)


def _check_int(name, k, v):
    if isinstance(v, float) or not isinstance(v, int):
        raise TypeError("attribute %s (%s): expected an integer, got %r"
                        % (name, E.attr_kind_name(k), v))
    v = int(v)
    if k in E.SIGNED_BITS:
        b = E.SIGNED_BITS[k]
        lo, hi = -(1 << (b - 1)), (1 << (b - 1)) - 1
    elif k in E.UNSIGNED_BITS:
        lo, hi = 0, (1 << E.UNSIGNED_BITS[k]) - 1
    else:  # bool
        lo, hi = 0, 1
    if not lo <= v <= hi:
        raise RangeError("attribute %s: %d does not fit %s (%d..%d)"
                         % (name, v, E.attr_kind_name(k), lo, hi), -11)
    return v


def _check_real(name, k, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError("attribute %s (%s): expected a number, got %r"
                        % (name, E.attr_kind_name(k), v))
    v = float(v)
    # A finite double beyond float's range would become inf (or worse: the
    # C conversion is undefined), so it is refused.
    if k == K.FLOAT and math.isfinite(v) and math.isinf(struct.unpack("f", struct.pack("f", v))[0]):
        raise RangeError("attribute %s: %r does not fit a float" % (name, v), -11)
    return v


def _check_str(name, k, v):
    if isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise TypeError("attribute %s (%s): expected str or bytes, got %r"
                    % (name, E.attr_kind_name(k), v))


def _check_value(name, k, v):
    """Validate v for kind k; returns the normalised Python value."""
    if k == K.NONE:
        if v is not None:
            raise TypeError("attribute %s: kind none takes the value None" % name)
        return None
    s = E.scalar_kind(k)
    if s in E.REAL_KINDS:
        one = _check_real
    elif s in (K.STRING, K.BYTES):
        one = _check_str
    else:
        one = _check_int
    if E.is_list_kind(k):
        if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
            raise TypeError("attribute %s (%s): expected a list, got %r"
                            % (name, E.attr_kind_name(k), v))
        vals = [one(name, s, x) for x in v]
        return [x != 0 for x in vals] if s == K.BOOL else vals
    v = one(name, s, v)
    return v != 0 if s == K.BOOL else v


def _attr(name, kind, value, doc=""):
    if not isinstance(name, str):
        raise TypeError("attribute name must be a str, not %r" % (name,))
    if "\0" in name:
        raise ValueError("attribute name %r contains a NUL byte" % name)
    k = E.attr_kind(kind)
    return Attr(name, k, _check_value(name, k, value), doc or "")


def attr_items(attrs):
    """Normalise attrs -- None, a dict name -> value (kinds inferred), or an
    iterable of (name, kind, value[, doc]) / Attr -- into checked Attrs."""
    if attrs is None:
        return []
    if isinstance(attrs, dict):
        return [_attr(n, infer_kind(v), v) for n, v in attrs.items()]
    out = []
    for a in attrs:
        if not isinstance(a, (tuple, list)) or len(a) not in (3, 4):
            raise TypeError("attributes must be (name, kind, value[, doc]) tuples, got %r"
                            % (a,))
        out.append(_attr(*a))
    return out


def _bytes(s):
    return s.encode("utf-8", "surrogateescape") if isinstance(s, str) else bytes(s)


def _rc(rc, what):
    if rc < 0:
        raise error(rc, what)


def add_attrs(b, items):
    """Append checked Attrs to a chakra_builder."""
    L = lib
    for a in items:
        nm = _bytes(a.name)
        k, v = int(a.kind), a.value
        s = E.scalar_kind(k)
        what = "attribute %s" % a.name
        if k == K.NONE:
            rc = L.chakra_builder_attr_empty(b, nm)
        elif E.is_list_kind(k):
            n = len(v)
            if s in E.REAL_KINDS:
                rc = L.chakra_builder_attr_list_double(b, nm, k, (ctypes.c_double * n)(*v), n)
            elif s in (K.STRING, K.BYTES):
                bs = [_bytes(x) for x in v]
                rc = L.chakra_builder_attr_list_string(
                    b, nm, k, (ctypes.c_char_p * n)(*bs),
                    (ctypes.c_size_t * n)(*[len(x) for x in bs]), n)
            else:
                # Integers travel as uint64 bit patterns (writer.h).
                rc = L.chakra_builder_attr_list_uint(
                    b, nm, k, (ctypes.c_uint64 * n)(*[int(x) & _UINT64_MAX for x in v]), n)
        elif s in E.REAL_KINDS:
            rc = L.chakra_builder_attr_double(b, nm, k, v)
        elif s in (K.STRING, K.BYTES):
            bv = _bytes(v)
            rc = L.chakra_builder_attr_string(b, nm, k, bv, len(bv))
        else:
            rc = L.chakra_builder_attr_uint(b, nm, k, int(v) & _UINT64_MAX)
        _rc(rc, what)
        if a.doc:
            d = _bytes(a.doc)
            _rc(L.chakra_builder_attr_set_doc(b, d, len(d)), what + " doc_string")


def _u64(what, v):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError("%s must be an int, not %r" % (what, v))
    if not 0 <= v <= _UINT64_MAX:
        raise RangeError("%s %d is outside 0..2**64-1" % (what, v), -11)
    return v


def _deps(what, deps):
    """A list of checked ids; the common all-valid case without a Python
    call per id."""
    deps = list(deps)
    if all(type(d) is int for d in deps) and (not deps or (min(deps) >= 0 and
                                                           max(deps) <= _UINT64_MAX)):
        return deps
    return [_u64(what, d) for d in deps]


_IO_FIELDS = ("values", "shapes", "types")


def fill_node(b, id, name, type, data_deps, ctrl_deps, start_time_micros,
              duration_micros, inputs, outputs, attrs):
    """Reset builder b and load one node into it (values checked first)."""
    L = lib
    id = _u64("node id", id)
    t = E.node_type(type)
    if not -(1 << 31) <= t < (1 << 31):
        raise RangeError("node %d: type %d does not fit an enum (int32)" % (id, t), -11)
    data = _deps("node %d: data dependency" % id, data_deps)
    ctrl = _deps("node %d: control dependency" % id, ctrl_deps)
    start = _u64("node %d: start_time_micros" % id, start_time_micros)
    dur = _u64("node %d: duration_micros" % id, duration_micros)
    if not isinstance(name, (str, bytes)):
        raise TypeError("node %d: name must be str, not %r" % (id, name))
    ios = []
    for label, io in (("inputs", inputs), ("outputs", outputs)):
        if io is None:
            ios.append(None)
            continue
        extra = set(io) - set(_IO_FIELDS)
        if extra:
            raise ValueError("node %d: %s has unknown fields %s (expected values, shapes, "
                             "types)" % (id, label, sorted(extra)))
        ios.append([_bytes(io.get(f, "")) for f in _IO_FIELDS])
    items = attr_items(attrs)

    L.chakra_builder_reset(b)
    L.chakra_builder_set_id(b, id)
    nm = _bytes(name)
    _rc(L.chakra_builder_set_name(b, nm, len(nm)), "node %d: name" % id)
    L.chakra_builder_set_type(b, t)
    L.chakra_builder_set_start_time_micros(b, start)
    L.chakra_builder_set_duration_micros(b, dur)
    # Real traces list dozens of deps per node: one tight loop each.
    for add, deps, what in ((L.chakra_builder_add_data_dep, data, "data_deps"),
                            (L.chakra_builder_add_ctrl_dep, ctrl, "ctrl_deps")):
        for d in deps:
            rc = add(b, d)
            if rc:
                _rc(rc, "node %d: %s" % (id, what))
    for which, io in enumerate(ios):
        if io is None:
            continue
        for f, s in enumerate(io):
            _rc(L.chakra_builder_set_io(b, which, f, s, len(s)), "node %d: IOInfo" % id)
    try:
        add_attrs(b, items)
    except InvalidArgumentError as e:
        raise InvalidArgumentError("node %d: %s" % (id, e.message), e.code) from None
