#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Protobuf's own JSON mapping (google.protobuf.json_format, Debian's
python3-protobuf) over Chakra ETs: the reference for `chakra pack` and
`chakra jsonize --protobuf-json`. The message classes come from
proto/et_def.proto through protoc at run time.

  pbjson.py make ET OUT.json [N] [--array]
      what Chakra's chakra_jsonizer writes for ET's metadata and its first
      N nodes (all by default): MessageToJson of each message, back to
      back; --array: one JSON array of MessageToDict objects (the jsonizer
      variant that writes a list). Used once to make
      tests/data/chakra/chakra.0.first20.pbjson{,.array} (SOURCES.md).
  pbjson.py check ET OUR.json
      parse OUR.json (chakra jsonize --protobuf-json: one message per line,
      or pretty, back to back) with json_format.Parse and compare every
      message's encoding with ET's bytes, and every object with what
      MessageToDict makes of ET's message. Exit 0 when all agree, 77 when
      protoc or python3-protobuf is missing.
"""
import gzip
import importlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.join(HERE, "..", "..", "proto", "et_def.proto")


def load_pb2():
    try:
        from google.protobuf import json_format  # noqa: F401
    except ImportError:
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="chakra-pbjson-")
    try:
        subprocess.run(["protoc", "-I", os.path.dirname(PROTO), "--python_out", tmp, PROTO],
                       check=True)
    except (OSError, subprocess.CalledProcessError):
        sys.exit(77)
    sys.path.insert(0, tmp)
    return importlib.import_module("et_def_pb2")


def read_varint(b, i):
    shift = v = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def messages(path):
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    i = 0
    while i < len(data):
        n, i = read_varint(data, i)
        yield data[i:i + n]
        i += n


def json_values(text):
    """Objects of a stream of JSON values (back to back, or one array)."""
    dec = json.JSONDecoder()
    i = 0
    out = []
    while True:
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        if i == len(text):
            return out
        v, i = dec.raw_decode(text, i)
        out.append(v)


def main():
    pb2 = load_pb2()
    from google.protobuf import json_format
    cmd = sys.argv[1]
    if cmd == "make":
        et, out = sys.argv[2], sys.argv[3]
        rest = [a for a in sys.argv[4:] if a != "--array"]
        limit = int(rest[0]) if rest else None
        msgs = []
        for k, raw in enumerate(messages(et)):
            if limit is not None and k > limit:
                break
            m = pb2.GlobalMetadata() if k == 0 else pb2.Node()
            m.ParseFromString(raw)
            msgs.append(m)
        with open(out, "w") as f:
            if "--array" in sys.argv:
                f.write(json.dumps([json_format.MessageToDict(m) for m in msgs]))
            else:
                for m in msgs:
                    f.write(json_format.MessageToJson(m))
        return 0
    if cmd == "check":
        et, ours = sys.argv[2], sys.argv[3]
        objs = json_values(open(ours, encoding="utf-8").read())
        if len(objs) == 1 and isinstance(objs[0], list):
            objs = objs[0]
        raws = list(messages(et))
        if len(objs) != len(raws):
            print(f"{ours}: {len(objs)} messages, {et} has {len(raws)}")
            return 1
        bad = 0
        for k, (obj, raw) in enumerate(zip(objs, raws)):
            cls = pb2.GlobalMetadata if k == 0 else pb2.Node
            ref = cls()
            ref.ParseFromString(raw)
            same_json = obj == json.loads(json_format.MessageToJson(ref))
            try:
                mine = json_format.ParseDict(obj, cls())
                same_bytes = mine.SerializeToString() == ref.SerializeToString()
            except json_format.ParseError as e:
                # protobuf's Python parser refuses some of its own output
                # (a float of FLT_MAX printed as 3.4028235e+38, above
                # FLT_MAX as a double): then the JSON must equal its own
                same_bytes = same_json
                print(f"message {k}: protobuf's parser refuses it ({e}); "
                      f"{'same JSON as MessageToJson' if same_json else 'differs'}")
            if not same_bytes or not same_json:
                bad += 1
                if bad <= 3:
                    print(f"message {k} differs:\n  ours {json.dumps(obj)[:300]}\n"
                          f"  ref  {json_format.MessageToJson(ref, indent=None)[:300]}")
        print(f"{ours}: {len(objs)} messages, {bad} differ from protobuf's JSON mapping")
        return 1 if bad else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
