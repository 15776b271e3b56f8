# SPDX-License-Identifier: Apache-2.0
"""libchakra: read, write and feed Chakra execution traces (ctypes bindings).

Standard library only. The shared library is found through, in order:
the LIBCHAKRA_PATH environment variable (path of libchakra.so; when set,
nothing else is tried), a libchakra.so next to this package, the library
directory recorded at install time, and ctypes.util.find_library("chakra").

    import libchakra
    with libchakra.Reader("trace.0.et.gz") as r:
        for node in r:
            print(node.id, node.name, node.type_name, node.attrs)

See docs/python.md.
"""

from ._lib import BINDINGS_VERSION, path as library_path, version as library_version_tuple
from ._lib import lib as _clib
from ._errors import (ChakraError, ChakraIOError, NoMemoryError, InvalidArgumentError,
                      TruncatedError, CorruptError, TooBigError, NoMetadataError, GzipError,
                      NotFoundError, KindError, RangeError, DuplicateIdError,
                      MissingDependencyError, CycleError, StateError, SelfDependencyError,
                      ConfigError, strerror)
from ._enums import (NodeType, CommType, AttrKind, node_type_name, comm_type_name,
                     attr_kind_name)
from ._node import Attr, Node, Metadata
from ._encode import infer_kind
from ._reader import Reader, read
from ._writer import Writer
from ._feeder import Feeder, Workload, DEPS, ORDERS
from ._sim import sim, SimResult, NpuResult
from ._jsonet import jsonize, pack
from ._check import validate, ValidateResult, Finding
from ._gen import convert_text, generate_basic, generate_micro, generate_model
from ._astralog import read_sim_log, SimLog
from ._perf import replay

__version__ = "%d.%d.%d" % BINDINGS_VERSION


def library_version():
    """Version string of the loaded C library, e.g. "0.1.0"."""
    return _clib.chakra_version_string().decode()


__all__ = [
    "Reader", "read", "Writer", "Feeder", "Workload", "Node", "Metadata", "Attr",
    "NodeType", "CommType", "AttrKind", "node_type_name", "comm_type_name", "attr_kind_name",
    "infer_kind", "library_version", "library_path", "DEPS", "ORDERS",
    "sim", "SimResult", "NpuResult", "jsonize", "pack", "validate", "ValidateResult", "Finding",
    "convert_text",
    "generate_basic",
    "generate_micro",
    "generate_model",
    "read_sim_log",
    "SimLog",
    "replay",
    "ChakraError", "ChakraIOError", "NoMemoryError", "InvalidArgumentError", "TruncatedError",
    "CorruptError", "TooBigError", "NoMetadataError", "GzipError", "NotFoundError",
    "KindError", "RangeError", "DuplicateIdError", "MissingDependencyError", "CycleError",
    "StateError", "SelfDependencyError", "ConfigError", "strerror",
]
