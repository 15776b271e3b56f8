# SPDX-License-Identifier: Apache-2.0
"""A PEP 517 build backend for the libchakra package, standard library only,
so `pip install ./bindings/python` works offline with no build dependency
to fetch. It builds a pure-Python wheel of libchakra/*.py (the ctypes
bindings; the shared library is found at import time) and an sdist."""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NAME = "libchakra"


def _version():
    with open(os.path.join(_ROOT, "libchakra", "_lib.py"), encoding="utf-8") as f:
        m = re.search(r"BINDINGS_VERSION = \((\d+), (\d+), (\d+)\)", f.read())
    return "%s.%s.%s" % m.groups()


def _modules():
    d = os.path.join(_ROOT, "libchakra")
    return sorted(f for f in os.listdir(d) if f.endswith(".py"))


def _metadata():
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: Read, write and feed Chakra execution traces (ctypes bindings of "
            "libchakra)\nLicense: Apache-2.0\nRequires-Python: >=3.7\n" % (_NAME, _version()))


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "%s,sha256=%s,%d" % (name, digest.decode(), len(data))


def _write_wheel(wheel_directory, editable_path=None):
    version = _version()
    dist_info = "%s-%s.dist-info" % (_NAME, version)
    wheel_name = "%s-%s-py3-none-any.whl" % (_NAME, version)
    files = []
    if editable_path is None:
        for m in _modules():
            with open(os.path.join(_ROOT, "libchakra", m), "rb") as f:
                files.append(("libchakra/" + m, f.read()))
    else:  # editable: a .pth file pointing at this tree
        files.append(("libchakra.pth", (editable_path + "\n").encode()))
    files.append((dist_info + "/METADATA", _metadata().encode()))
    files.append((dist_info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: chakra_build\n"
                  b"Root-Is-Purelib: true\nTag: py3-none-any\n"))
    record = [_record_line(n, d) for n, d in files] + [dist_info + "/RECORD,,"]
    files.append((dist_info + "/RECORD", ("\n".join(record) + "\n").encode()))
    path = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files:
            info = zipfile.ZipInfo(n, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, d)
    return wheel_name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, editable_path=_ROOT)


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (_NAME, _version())
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for rel in ["pyproject.toml", "build_backend/chakra_build.py"] + \
                ["libchakra/" + m for m in _modules()]:
            t.add(os.path.join(_ROOT, rel), arcname=base + "/" + rel)
        pkg = _metadata().encode()
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size = len(pkg)
        t.addfile(info, io.BytesIO(pkg))
    return name
