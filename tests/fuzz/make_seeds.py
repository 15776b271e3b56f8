#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerate the small seed inputs of tests/fuzz/corpus/ (run from the
repository root). Traces are cut from
tests/data/chakra/chakra.0.et.gz (metadata plus a few nodes) or written
here with the protobuf wire format, so each seed is a few KB."""
import gzip
import os

SHARED = os.environ.get("CHAKRA_SHARED", "tests")


def varint(x):
    out = b""
    while True:
        c = x & 0x7F
        x >>= 7
        if x:
            out += bytes([c | 0x80])
        else:
            return out + bytes([c])


def field(num, wt, payload):
    tag = varint(num << 3 | wt)
    if wt == 0:
        return tag + varint(payload)
    return tag + varint(len(payload)) + payload


def delimited(msg):
    return varint(len(msg)) + msg


def attr(name, kind, value):
    """kind: a field number of AttributeProto; value already encoded."""
    return field(1, 2, name.encode()) + value_field(kind, value)


def value_field(kind, value):
    if kind in (3, 21, 25):  # double, fixed64, sfixed64
        return varint(kind << 3 | 1) + value
    if kind in (5, 19, 23):
        return varint(kind << 3 | 5) + value
    if kind % 2 == 0 or kind in (29, 31):
        return field(kind, 2, value)
    return varint(kind << 3) + value  # varint kinds: value is already a varint


def node(nid, name, ntype, data=(), ctrl=(), attrs=()):
    m = field(1, 0, nid) + field(2, 2, name.encode()) + field(3, 0, ntype)
    if ctrl:
        m += field(4, 2, b"".join(varint(d) for d in ctrl))
    if data:
        m += field(5, 2, b"".join(varint(d) for d in data))
    m += field(7, 0, 5)
    for a in attrs:
        m += field(10, 2, a)
    return m


META = delimited(field(1, 2, b"0.0.4"))


def chakra_cut():
    src = gzip.open(os.path.join(SHARED, "data/chakra/chakra.0.et.gz")).read()
    offs, i = [], 0
    while i < len(src):
        n, j = 0, i
        shift = 0
        while True:
            c = src[j]
            j += 1
            n |= (c & 0x7F) << shift
            shift += 7
            if c < 0x80:
                break
        offs.append((i, j + n))
        i = j + n
    return src, offs


def dag():
    """A small graph with data and control edges, a diamond and a chain."""
    kinds = [
        attr("is_cpu_op", 27, varint(1)),
        attr("num_ops", 9, varint(4096)),
        attr("comm_type", 9, varint(0)),
        attr("comm_size", 13, varint(1 << 20)),
        attr("involved_dim", 28, field(1, 2, b"\x01\x00\x01")),
        attr("pg_name", 29, b"0"),
        attr("f", 6, field(1, 2, b"\x00\x00\x80\x3f" * 2)),
        attr("d", 3, b"\x00" * 7 + b"\x40"),
        attr("s", 30, field(1, 2, b"a") + field(1, 2, b"bc")),
        attr("z", 16, field(1, 2, b"\x01\x03")),
    ]
    nodes = [
        node(1, "load", 2, attrs=kinds[:2]),
        node(2, "gemm", 4, data=[1], attrs=kinds[1:2] + kinds[6:]),
        node(3, "ar", 7, data=[1], ctrl=[2], attrs=kinds[2:6]),
        node(4, "store", 3, data=[2, 3]),
        node(5, "send", 5, data=[4], attrs=[attr("comm_dst", 7, varint(1)),
                                           attr("comm_tag", 7, varint(7))]),
        node(6, "recv", 6, data=[4], ctrl=[5]),
    ]
    return META + b"".join(delimited(n) for n in nodes)


def main():
    src, offs = chakra_cut()
    small = [k for k in range(1, len(offs)) if offs[k][1] - offs[k][0] < 700]

    def cut(idx):
        return src[offs[0][0]:offs[0][1]] + b"".join(src[offs[k][0]:offs[k][1]] for k in idx)

    astra = open(os.path.join(
        SHARED, "data/astra-sim/microbenchmarks/all_reduce/4npus_1MB/all_reduce.0.et"), "rb").read()
    reader = {
        "chakra0-metaonly": cut([]),
        "chakra0-small4": cut(small[:4]),
        "chakra0-mid3": cut(small[100:103]),
        "chakra0-first2.gz": gzip.compress(cut([1, 2]), mtime=0),
        "astra-all_reduce.0.et": astra,
        "dag-allkinds": dag(),
    }
    # Feeder seeds: options byte, op count, ops, trace.
    feeder = {
        "pull-dag": bytes([0, 0]) + dag(),
        "pull-both-fileorder": bytes([3 | 4, 6, 0, 0, 0, 1, 2, 0]) + dag(),
        "cb-dag": bytes([0x10, 2, 0, 0]) + dag(),
        "cb-inline-complete": bytes([0x30 | 3, 1, 0]) + dag(),
        "window1-ctrl-strict": bytes([0x40 | 8 | 2, 0]) + dag(),
        "pull-chakra0": bytes([0, 3, 0, 0, 5]) + cut(small[:4]),
        "pull-astra": bytes([0, 0]) + astra,
    }
    # Tool parsers. pack: JSON as `chakra jsonize` writes it (CHAKRA_EXE)
    # and the workload_graph form; sim: selector byte, NPU count, text.
    pack = {"small_chakra.0.json": open(os.path.join(
        SHARED, "data/chakra/small_chakra.0.json"), "rb").read()}
    exe = os.environ.get("CHAKRA_EXE")
    if exe:
        import subprocess
        import tempfile
        for name in ("dag-allkinds", "chakra0-small4"):
            with tempfile.NamedTemporaryFile(suffix=".et") as t:
                t.write(reader[name])
                t.flush()
                pack[name + ".json"] = subprocess.run(
                    [exe, "jsonize", t.name], check=True, capture_output=True).stdout
                pack[name + ".pb.json"] = subprocess.run(
                    [exe, "jsonize", "--protobuf-json", t.name], check=True,
                    capture_output=True).stdout
    sim = {}
    for d, sel in (("network", 0), ("system", 1)):
        base = os.path.join(SHARED, "data/astra-sim", d)
        for fn in sorted(os.listdir(base)):
            sim[d + "-" + fn] = bytes([sel, 0]) + open(os.path.join(base, fn), "rb").read()
    sim["groups-2x2"] = bytes([2, 4]) + b'{"0": [0, 1], "1": [2, 3], "all": [0, 1, 2, 3]}'
    text = {}
    base = os.path.join(SHARED, "data/astra-sim/text_workloads")
    for fn in sorted(os.listdir(base)):
        if fn.endswith(".txt"):
            text[fn] = open(os.path.join(base, fn), "rb").read()
    # timeline: byte 0 = NPU count - 1, then the log (ours, ASTRA-sim's
    # with and without its logger prefix, nested nodes)
    def ev(kind, npu, cyc, nid, name, astra=False, prefix=""):
        if astra:
            return (f"{prefix}{kind},sys->id={npu}, tick={cyc}, node->id={nid}, "
                    f"node->name={name}, node->type=4\n")
        return f"{kind},npu_id={npu},cycle={cyc},node_id={nid},node_name={name}\n"
    pre = "[2024-05-01T10:00:00+0000] [D] <workload>: "
    timeline = {
        "ours": b"\x01" + (ev("issue", 0, 100, 3, "gemm, fwd") + ev("issue", 1, 150, 3, "ar") +
                           ev("callback", 0, 400, 3, "gemm, fwd") +
                           ev("callback", 1, 900, 3, "ar")).encode(),
        "astra-prefixed": b"\x01" + ("[2024-05-01T10:00:00+0000] [I] <main>: ring of 2 NPUs\n" +
                                     ev("issue", 0, 100, 3, "gemm, fwd", True, pre) +
                                     ev("issue", 1, 150, 3, "ar", True, pre) +
                                     ev("callback", 0, 400, 3, "gemm, fwd", True, pre) +
                                     ev("callback", 1, 900, 3, "ar", True, pre)).encode(),
        "astra-bare": b"\x03" + (ev("issue", 2, 5, 1, "a", True) +
                                 ev("callback", 2, 9, 1, "a", True)).encode(),
        "nested": b"\x00" + ("".join(ev("issue", 0, i, i, f"n{i}") for i in range(8)) +
                             "".join(ev("callback", 0, 20 - i, i, f"n{i}")
                                     for i in reversed(range(8)))).encode(),
    }
    for d, seeds in (("reader", reader), ("feeder", feeder), ("pack", pack),
                     ("sim_config", sim), ("text", text), ("timeline", timeline)):
        os.makedirs(os.path.join("tests/fuzz/corpus", d), exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join("tests/fuzz/corpus", d, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
