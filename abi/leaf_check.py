#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Judge `abidiff --leaf-changes-only BASE NEW` output (stdin): exit 0 when
every change is compatible (additions, and members appended at the end of a
struct listed in abi/append-only.txt), 1 otherwise, printing why.
Usage: abidiff --leaf-changes-only BASE NEW | leaf_check.py abi/append-only.txt"""
import re
import sys

allowed = set()
with open(sys.argv[1]) as f:
    for line in f:
        line = line.strip()
        if line and not line.startswith("#"):
            allowed.add(line)

bad = []
text = sys.stdin.read()
for what in ("functions", "variables"):
    m = re.search(r"Removed/Changed/Added %s summary: (\d+) Removed, (\d+) Changed" % what, text)
    if m and (int(m.group(1)) or int(m.group(2))):
        bad.append("%s removed or changed: %s" % (what, m.group(0)))
m = re.search(r"(Function|Variable) symbols changes summary: (\d+) Removed", text)
for m in re.finditer(r"(Function|Variable) symbols changes summary: (\d+) Removed", text):
    if int(m.group(2)):
        bad.append(m.group(0))

# Leaf type blocks: "'struct X' changed:" then indented lines.
blocks = re.split(r"\n(?='[^'\n]*' changed:\n)", text)
for b in blocks:
    head = re.match(r"'([^']*)' changed:\n", b)
    if not head:
        continue
    name = head.group(1)
    lines = [l.strip() for l in b[head.end():].split("\n") if l.strip()]
    sm = re.match(r"(struct|typedef) (\w+)$", name)
    if not sm or sm.group(2) not in allowed:
        bad.append("type %s changed (not an append-only struct):\n    %s" % (name, "\n    ".join(lines)))
        continue
    old = None
    why = []
    for l in lines:
        m = re.match(r"type size changed from (\d+) to (\d+) \(in bits\)$", l)
        if m:
            old = int(m.group(1))
            if int(m.group(2)) < old:
                why.append("shrank: " + l)
            continue
        if re.match(r"\d+ data member insertions?:$", l):
            continue
        m = re.match(r"'.*', at offset (\d+) \(in bits\)$", l)
        if m and old is not None and int(m.group(1)) >= old:
            continue
        why.append(l)
    if why:
        bad.append("%s: not an append at the end:\n    %s" % (name, "\n    ".join(why)))

for b in bad:
    print("ABI incompatible: " + b)
sys.exit(1 if bad else 0)
