# SPDX-License-Identifier: Apache-2.0
"""Loading a module library (libchakra-sim, libchakra-jsonet,
libchakra-check): a second shared library next to libchakra, loaded on
first use so that `import libchakra` never needs it. Search order: the
environment variable (a file path; when set nothing else is tried), the
library next to the loaded libchakra (or in its <subdir>/ folder, the build
tree's layout), next to the package, the install libdir, then
ctypes.util.find_library."""

import ctypes
import ctypes.util
import glob
import os

from . import _lib
from ._errors import ChakraError

_loaded = {}


def _candidates(name, env, subdir):
    path = os.environ.get(env)
    if path:
        yield env, path
        return
    names = ("lib%s.so" % name, "lib%s.so.*" % name, "lib%s.dylib" % name,
             "lib%s.*.dylib" % name, "%s.dll" % name, "lib%s.dll" % name)
    core = os.path.dirname(os.path.abspath(_lib.path)) if os.sep in _lib.path else None
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = []
    if core:
        dirs += [("next to libchakra", core), ("next to libchakra", os.path.join(core, subdir))]
    dirs += [("next to the package", here), ("next to the package", os.path.dirname(here))]
    try:
        from . import _install  # generated at install time
        dirs.append(("install libdir", _install.LIBDIR))
    except ImportError:
        pass
    for where, d in dirs:
        for pat in names:
            for p in sorted(glob.glob(os.path.join(d, pat))):
                yield where, p
    found = ctypes.util.find_library(name)
    if found:
        yield "ctypes.util.find_library", found


def load(name, env, subdir, protos, what):
    """The library lib<name> with protos ({function: (restype, argtypes)})
    set, loaded once; ChakraError naming every place tried otherwise."""
    if name in _loaded:
        return _loaded[name]
    tried = []
    for where, path in _candidates(name, env, subdir):
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s): %s" % (path, where, e))
            continue
        try:
            for fn, (res, args) in protos.items():
                f = getattr(lib, fn)
                f.restype = res
                f.argtypes = args
        except AttributeError as e:
            tried.append("%s (%s): %s" % (path, where, e))
            continue
        _loaded[name] = lib
        return lib
    raise ChakraError("lib%s not found (%s is a second library, lib%s.so, installed next to "
                      "libchakra.so; set %s to its path). Tried: %s"
                      % (name, what, name, env, "; ".join(tried) or "nothing"), -3)
