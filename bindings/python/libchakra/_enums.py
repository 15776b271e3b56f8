# SPDX-License-Identifier: Apache-2.0
"""Node types, collective types and attribute kinds (node.h), as IntEnums."""

import enum

from ._lib import lib


class NodeType(enum.IntEnum):
    INVALID_NODE = 0
    METADATA_NODE = 1
    MEM_LOAD_NODE = 2
    MEM_STORE_NODE = 3
    COMP_NODE = 4
    COMM_SEND_NODE = 5
    COMM_RECV_NODE = 6
    COMM_COLL_NODE = 7


class CommType(enum.IntEnum):
    ALL_REDUCE = 0
    REDUCE = 1
    ALL_GATHER = 2
    GATHER = 3
    SCATTER = 4
    BROADCAST = 5
    ALL_TO_ALL = 6
    REDUCE_SCATTER = 7
    REDUCE_SCATTER_BLOCK = 8
    BARRIER = 9


class AttrKind(enum.IntEnum):
    """AttributeProto oneof field numbers: odd = scalar, even = its list."""
    NONE = 0
    DOUBLE = 3
    DOUBLE_LIST = 4
    FLOAT = 5
    FLOAT_LIST = 6
    INT32 = 7
    INT32_LIST = 8
    INT64 = 9
    INT64_LIST = 10
    UINT32 = 11
    UINT32_LIST = 12
    UINT64 = 13
    UINT64_LIST = 14
    SINT32 = 15
    SINT32_LIST = 16
    SINT64 = 17
    SINT64_LIST = 18
    FIXED32 = 19
    FIXED32_LIST = 20
    FIXED64 = 21
    FIXED64_LIST = 22
    SFIXED32 = 23
    SFIXED32_LIST = 24
    SFIXED64 = 25
    SFIXED64_LIST = 26
    BOOL = 27
    BOOL_LIST = 28
    STRING = 29
    STRING_LIST = 30
    BYTES = 31
    BYTES_LIST = 32


# Value classes of the scalar kinds, and (for integers) their bit widths.
SIGNED_BITS = {AttrKind.INT32: 32, AttrKind.INT64: 64, AttrKind.SINT32: 32,
               AttrKind.SINT64: 64, AttrKind.SFIXED32: 32, AttrKind.SFIXED64: 64}
UNSIGNED_BITS = {AttrKind.UINT32: 32, AttrKind.UINT64: 64, AttrKind.FIXED32: 32,
                 AttrKind.FIXED64: 64}
REAL_KINDS = (AttrKind.DOUBLE, AttrKind.FLOAT)


def is_list_kind(k):
    return k >= 4 and k % 2 == 0


def scalar_kind(k):
    return k - 1 if is_list_kind(k) else k


def is_int_kind(k):
    """Integer kinds and bool (the C getters accept bool as an integer)."""
    k = scalar_kind(k)
    return k in SIGNED_BITS or k in UNSIGNED_BITS or k == AttrKind.BOOL


def _name(fn, value):
    s = fn(value)
    return s.decode() if s else None


def node_type_name(t):
    """"COMP_NODE" etc.; None for a value outside NodeType."""
    return _name(lib.chakra_node_type_name, int(t))


def comm_type_name(t):
    return _name(lib.chakra_comm_type_name, int(t))


def attr_kind_name(k):
    """"int64", "bool_list", "none", ...; None for an unknown kind."""
    return _name(lib.chakra_attr_kind_name, int(k))


def attr_kind(k):
    """An AttrKind from an AttrKind, an int or a name such as "int64"."""
    if isinstance(k, str):
        v = lib.chakra_attr_kind_from_name(k.encode())
        if v < 0:
            raise ValueError("unknown attribute kind %r (expected e.g. 'int64', 'bool_list')" % k)
        return AttrKind(v)
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError("attribute kind must be an AttrKind, int or name, not %r" % (k,))
    try:
        return AttrKind(k)
    except ValueError:
        raise ValueError("unknown attribute kind %d" % k) from None


def node_type(t):
    """A node type from an int or a name such as "COMP_NODE"; any int is
    accepted (files may hold values outside the enum)."""
    if isinstance(t, str):
        v = lib.chakra_node_type_from_name(t.encode())
        if v < 0:
            raise ValueError("unknown node type %r (expected e.g. 'COMP_NODE')" % t)
        return v
    if isinstance(t, bool) or not isinstance(t, int):
        raise TypeError("node type must be an int or name, not %r" % (t,))
    return int(t)
