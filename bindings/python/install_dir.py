# SPDX-License-Identifier: Apache-2.0
"""Print the directory under PREFIX where this interpreter looks for
packages (a sys.path entry), for `meson install` to put libchakra there;
print nothing when it searches no directory under PREFIX.

Meson's own choice follows sysconfig, which on Debian names
PREFIX/lib/python3.X/site-packages, a directory Debian's /usr/bin/python3
never searches (it reads .../dist-packages): after a plain `meson install`
`import libchakra` failed."""
import os
import sys

prefix = os.path.realpath(sys.argv[1])
best = None
for p in sys.path:
    if not p or not os.path.isabs(p):
        continue
    r = os.path.realpath(p)
    if not r.startswith(prefix + os.sep) or not r.endswith(("site-packages", "dist-packages")):
        continue
    if not os.path.relpath(r, prefix).startswith("lib"):
        continue  # (PREFIX/local/lib/... belongs to another prefix)
    # Prefer the versioned directory of this interpreter (lib/python3.X/...).
    rank = 0 if "python%d.%d" % sys.version_info[:2] in r else 1
    if best is None or rank < best[0]:
        best = (rank, p)
if best:
    print(best[1])
