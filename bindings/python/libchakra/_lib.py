# SPDX-License-Identifier: Apache-2.0
"""Loading libchakra.so and declaring the C prototypes the bindings use.

Only this module touches ctypes declarations; the rest of the package calls
the functions through ``lib``. Every prototype is declared with argtypes and
restype so that 64-bit ids and pointers are never truncated to C ints.
"""

import ctypes
import ctypes.util
import glob
import os

# The C library version these bindings were written against (version.h).
BINDINGS_VERSION = (0, 1, 0)

_HERE = os.path.dirname(os.path.abspath(__file__))
_NAMES = ("libchakra.so", "libchakra.so.*", "libchakra.dylib", "libchakra.*.dylib",
          "chakra.dll", "libchakra.dll")


def _candidates():
    """(where, path) pairs in search order."""
    env = os.environ.get("LIBCHAKRA_PATH")
    if env:
        # An explicit choice: never fall back silently to another library.
        yield "LIBCHAKRA_PATH", env
        return
    # Installed case: the library copied next to the package (or one level
    # up, when the package sits in the library's directory).
    for d in (_HERE, os.path.dirname(_HERE)):
        for pat in _NAMES:
            for p in sorted(glob.glob(os.path.join(d, pat))):
                yield "next to the package", p
    # Installed case: meson records the library directory it installs to.
    try:
        from . import _install  # generated at install time
        for pat in _NAMES:
            for p in sorted(glob.glob(os.path.join(_install.LIBDIR, pat))):
                yield "install libdir", p
    except ImportError:
        pass
    # pkg-config's idea of where libchakra is installed (PKG_CONFIG_PATH,
    # PKG_CONFIG_SYSROOT_DIR respected): -L flags, then the libdir variable.
    for d in _pkg_config_dirs():
        for pat in _NAMES:
            for p in sorted(glob.glob(os.path.join(d, pat))):
                yield "pkg-config", p
    # The loader's own path (ldconfig cache, LD_LIBRARY_PATH).
    found = ctypes.util.find_library("chakra")
    if found:
        yield "ctypes.util.find_library", found


def _pkg_config_dirs():
    import shutil
    import subprocess
    exe = shutil.which("pkg-config")
    if not exe:
        return []
    dirs = []
    for args in (["--libs-only-L"], ["--variable=libdir"]):
        try:
            out = subprocess.run([exe] + args + ["chakra"], capture_output=True, text=True,
                                 timeout=10, check=False).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        for tok in out.split():
            d = tok[2:] if tok.startswith("-L") else tok
            if d and d not in dirs:
                dirs.append(d)
    return dirs


def _load():
    tried = []
    for where, path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s (%s): %s" % (path, where, e))
    if os.environ.get("LIBCHAKRA_PATH"):
        msg = "libchakra: cannot load LIBCHAKRA_PATH=%s: %s" % (
            os.environ["LIBCHAKRA_PATH"], "; ".join(tried))
    else:
        msg = ("libchakra: shared library libchakra not found. Set LIBCHAKRA_PATH to the "
               "path of libchakra.so (e.g. build/lib/libchakra.so), install libchakra, or "
               "put it next to the package (%s)." % _HERE)
        if tried:
            msg += " Tried: " + "; ".join(tried)
    raise ImportError(msg)


lib, path = _load()

lib.chakra_version.restype = ctypes.c_uint
lib.chakra_version.argtypes = []
_v = lib.chakra_version()
version = (_v // 10000, _v // 100 % 100, _v % 100)
if version[0] != BINDINGS_VERSION[0]:
    raise ImportError("libchakra: %s is version %d.%d.%d but these bindings need %d.x.x"
                      % ((path,) + version + (BINDINGS_VERSION[0],)))

c_void_p = ctypes.c_void_p
c_char_p = ctypes.c_char_p
c_int = ctypes.c_int
c_uint = ctypes.c_uint
c_size_t = ctypes.c_size_t
c_uint64 = ctypes.c_uint64
c_int64 = ctypes.c_int64
c_double = ctypes.c_double
P = ctypes.POINTER
size_p = P(c_size_t)
str_p = P(c_char_p)
# Strings come back as a pointer plus a length and may hold NUL bytes.
# They are declared char* (one call gives the bytes up to the first NUL,
# the common case) and re-read with ctypes.string_at when the length says
# the string goes on (raw() gives the pointer-returning variant).
cstr_p = P(c_char_p)

READ_CB = ctypes.CFUNCTYPE(ctypes.c_long, c_void_p, c_void_p, c_size_t)
WRITE_CB = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, c_size_t)
READY_CB = ctypes.CFUNCTYPE(None, c_void_p, c_void_p, c_void_p)


class ReaderOptions(ctypes.Structure):
    _fields_ = [("version", c_uint), ("max_message_size", c_uint64),
                ("display_name", c_char_p), ("verify_with_nanopb", c_int),
                ("max_node_memory", c_uint64)]


class WriterOptions(ctypes.Structure):
    _fields_ = [("version", c_uint), ("gzip", c_int), ("gzip_level", c_int),
                ("overwrite", c_int)]


class FeederOptions(ctypes.Structure):
    _fields_ = [("version", c_uint), ("deps", c_int), ("order", c_int),
                ("window", c_uint64), ("strict", c_int), ("ready_cb", READY_CB),
                ("data", c_void_p), ("reader", P(ReaderOptions)),
                ("window_bytes", c_uint64), ("max_memory", c_uint64)]


READER_OPTIONS_VERSION = 2
WRITER_OPTIONS_VERSION = 1
FEEDER_OPTIONS_VERSION = 2

_PROTOS = {
    # version.h, error.h
    "chakra_version_string": (c_char_p, []),
    "chakra_strerror": (c_char_p, [c_int]),
    # node.h
    "chakra_node_type_name": (c_char_p, [c_int]),
    "chakra_node_type_from_name": (c_int, [c_char_p]),
    "chakra_comm_type_name": (c_char_p, [c_int]),
    "chakra_comm_type_from_name": (c_int, [c_char_p]),
    "chakra_attr_kind_name": (c_char_p, [c_int]),
    "chakra_attr_kind_from_name": (c_int, [c_char_p]),
    "chakra_node_id": (c_uint64, [c_void_p]),
    "chakra_node_name": (c_char_p, [c_void_p, size_p]),
    "chakra_node_type_of": (c_int, [c_void_p]),
    "chakra_node_start_time_micros": (c_uint64, [c_void_p]),
    "chakra_node_duration_micros": (c_uint64, [c_void_p]),
    "chakra_node_data_dep_count": (c_size_t, [c_void_p]),
    "chakra_node_data_deps": (P(c_uint64), [c_void_p]),
    "chakra_node_ctrl_dep_count": (c_size_t, [c_void_p]),
    "chakra_node_ctrl_deps": (P(c_uint64), [c_void_p]),
    "chakra_node_has_io": (c_int, [c_void_p, c_int]),
    "chakra_node_io": (c_char_p, [c_void_p, c_int, c_int, size_p]),
    "chakra_node_offset": (c_uint64, [c_void_p]),
    "chakra_node_index": (c_uint64, [c_void_p]),
    "chakra_node_attr_count": (c_size_t, [c_void_p]),
    "chakra_node_attr_at": (c_void_p, [c_void_p, c_size_t]),
    "chakra_attr_name": (c_char_p, [c_void_p, size_p]),
    "chakra_attr_doc": (c_char_p, [c_void_p, size_p]),
    "chakra_attr_kind_of": (c_int, [c_void_p]),
    "chakra_attr_int": (c_int, [c_void_p, P(c_int64)]),
    "chakra_attr_uint": (c_int, [c_void_p, P(c_uint64)]),
    "chakra_attr_double": (c_int, [c_void_p, P(c_double)]),
    "chakra_attr_string": (c_int, [c_void_p, cstr_p, size_p]),
    "chakra_attr_list_len": (c_size_t, [c_void_p]),
    "chakra_attr_list_int": (c_int, [c_void_p, c_size_t, P(c_int64)]),
    "chakra_attr_list_uint": (c_int, [c_void_p, c_size_t, P(c_uint64)]),
    "chakra_attr_list_double": (c_int, [c_void_p, c_size_t, P(c_double)]),
    "chakra_attr_list_string": (c_int, [c_void_p, c_size_t, cstr_p, size_p]),
    "chakra_metadata_version": (c_char_p, [c_void_p, size_p]),
    "chakra_metadata_attr_count": (c_size_t, [c_void_p]),
    "chakra_metadata_attr_at": (c_void_p, [c_void_p, c_size_t]),
    # reader.h
    "chakra_reader_open": (c_int, [P(c_void_p), c_char_p, P(ReaderOptions)]),
    "chakra_reader_open_buffer": (c_int, [P(c_void_p), c_void_p, c_size_t, P(ReaderOptions)]),
    "chakra_reader_open_cb": (c_int, [P(c_void_p), READ_CB, c_void_p, P(ReaderOptions)]),
    "chakra_reader_close": (None, [c_void_p]),
    "chakra_reader_metadata": (c_void_p, [c_void_p]),
    "chakra_reader_next": (c_int, [c_void_p, P(c_void_p)]),
    "chakra_reader_offset": (c_uint64, [c_void_p]),
    "chakra_reader_node_count": (c_uint64, [c_void_p]),
    "chakra_reader_errmsg": (c_char_p, [c_void_p]),
    # writer.h
    "chakra_builder_new": (c_void_p, []),
    "chakra_builder_free": (None, [c_void_p]),
    "chakra_builder_reset": (None, [c_void_p]),
    "chakra_builder_set_id": (None, [c_void_p, c_uint64]),
    "chakra_builder_set_name": (c_int, [c_void_p, c_char_p, c_size_t]),
    "chakra_builder_set_type": (None, [c_void_p, c_int]),
    "chakra_builder_set_start_time_micros": (None, [c_void_p, c_uint64]),
    "chakra_builder_set_duration_micros": (None, [c_void_p, c_uint64]),
    "chakra_builder_add_data_dep": (c_int, [c_void_p, c_uint64]),
    "chakra_builder_add_ctrl_dep": (c_int, [c_void_p, c_uint64]),
    "chakra_builder_set_io": (c_int, [c_void_p, c_int, c_int, c_char_p, c_size_t]),
    "chakra_builder_attr_int": (c_int, [c_void_p, c_char_p, c_int, c_int64]),
    "chakra_builder_attr_uint": (c_int, [c_void_p, c_char_p, c_int, c_uint64]),
    "chakra_builder_attr_double": (c_int, [c_void_p, c_char_p, c_int, c_double]),
    "chakra_builder_attr_string": (c_int, [c_void_p, c_char_p, c_int, c_char_p, c_size_t]),
    "chakra_builder_attr_list_uint": (c_int, [c_void_p, c_char_p, c_int, P(c_uint64),
                                              c_size_t]),
    "chakra_builder_attr_list_double": (c_int, [c_void_p, c_char_p, c_int, P(c_double),
                                                c_size_t]),
    "chakra_builder_attr_list_string": (c_int, [c_void_p, c_char_p, c_int, P(c_char_p),
                                                P(c_size_t), c_size_t]),
    "chakra_builder_attr_empty": (c_int, [c_void_p, c_char_p]),
    "chakra_builder_attr_set_doc": (c_int, [c_void_p, c_char_p, c_size_t]),
    "chakra_writer_open": (c_int, [P(c_void_p), c_char_p, P(WriterOptions)]),
    "chakra_writer_open_cb": (c_int, [P(c_void_p), WRITE_CB, c_void_p, P(WriterOptions)]),
    "chakra_writer_write_metadata": (c_int, [c_void_p, c_char_p, c_void_p]),
    "chakra_writer_write_node": (c_int, [c_void_p, c_void_p]),
    "chakra_writer_finish": (c_int, [c_void_p]),
    "chakra_writer_close": (None, [c_void_p]),
    "chakra_writer_errmsg": (c_char_p, [c_void_p]),
    "chakra_writer_node_count": (c_uint64, [c_void_p]),
}

# feeder.h: a library built before the feeder existed still serves the
# reader and writer; Feeder then raises a clear error when used.
_FEEDER_PROTOS = {
    "chakra_feeder_open": (c_int, [P(c_void_p), c_char_p, P(FeederOptions)]),
    "chakra_feeder_open_buffer": (c_int, [P(c_void_p), c_void_p, c_size_t, P(FeederOptions)]),
    "chakra_feeder_open_cb": (c_int, [P(c_void_p), READ_CB, c_void_p, P(FeederOptions)]),
    "chakra_feeder_close": (None, [c_void_p]),
    "chakra_feeder_next": (c_int, [c_void_p, P(c_void_p)]),
    "chakra_feeder_complete": (c_int, [c_void_p, c_uint64]),
    "chakra_feeder_push_back": (c_int, [c_void_p, c_uint64]),
    "chakra_feeder_drive": (c_int, [c_void_p]),
    "chakra_feeder_lookup": (c_void_p, [c_void_p, c_uint64]),
    "chakra_feeder_has_more": (c_int, [c_void_p]),
    "chakra_feeder_held_count": (c_uint64, [c_void_p]),
    "chakra_feeder_ready_count": (c_uint64, [c_void_p]),
    "chakra_feeder_inflight_count": (c_uint64, [c_void_p]),
    "chakra_feeder_issued_count": (c_uint64, [c_void_p]),
    "chakra_feeder_completed_count": (c_uint64, [c_void_p]),
    "chakra_feeder_warning_count": (c_uint64, [c_void_p]),
    "chakra_feeder_cycle_break_count": (c_uint64, [c_void_p]),
    "chakra_feeder_duplicate_dep_count": (c_uint64, [c_void_p]),
    "chakra_feeder_metadata": (c_void_p, [c_void_p]),
    "chakra_feeder_errmsg": (c_char_p, [c_void_p]),
    "chakra_workload_open": (c_int, [P(c_void_p), c_char_p, P(FeederOptions)]),
    "chakra_workload_size": (c_size_t, [c_void_p]),
    "chakra_workload_feeder": (c_void_p, [c_void_p, c_size_t]),
    "chakra_workload_errmsg": (c_char_p, [c_void_p]),
    "chakra_workload_close": (None, [c_void_p]),
}


def _declare(protos):
    for name, (res, args) in protos.items():
        f = getattr(lib, name)  # AttributeError names the missing symbol
        f.restype = res
        f.argtypes = args


_declare(_PROTOS)
try:
    _declare(_FEEDER_PROTOS)
    has_feeder = True
    feeder_missing = None
except AttributeError as e:
    has_feeder = False
    feeder_missing = str(e)


_raw = {}


def raw(name):
    """The function `name` with a void* result (for strings holding NUL)."""
    f = _raw.get(name)
    if f is None:
        res, args = _PROTOS[name]
        f = _raw[name] = ctypes.CFUNCTYPE(c_void_p, *args)((name, lib))
    return f
