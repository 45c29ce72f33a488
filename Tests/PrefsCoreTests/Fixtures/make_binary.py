#!/usr/bin/env python3
"""Writes the binary property lists the reader's tests compare against.

Each file is written by Python's plistlib (FMT_BINARY) and has a JSON twin
that says, in a form the tests read without plistlib, what it holds.
Run from this directory: python3 make_binary.py
"""
import datetime
import json
import plistlib

UTC = datetime.timezone.utc


def tagged(v):
    """The value as JSON with types kept: {"t": type, "v": value}."""
    if isinstance(v, bool):
        return {"t": "bool", "v": v}
    if isinstance(v, plistlib.UID):
        return {"t": "dict", "v": {"CF$UID": {"t": "int", "v": str(v.data)}}}
    if isinstance(v, int):
        return {"t": "int", "v": str(v)}
    if isinstance(v, float):
        return {"t": "real", "v": v.hex()}
    if isinstance(v, str):
        return {"t": "string", "v": v}
    if isinstance(v, (bytes, bytearray)) and len(v) > 1000 and not any(v):
        return {"t": "zeros", "v": len(v)}
    if isinstance(v, (bytes, bytearray)):
        return {"t": "data", "v": bytes(v).hex()}
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=UTC)
        delta = v - datetime.datetime(1970, 1, 1, tzinfo=UTC)
        return {"t": "date", "v": delta.total_seconds()}
    if isinstance(v, (list, tuple)):
        return {"t": "array", "v": [tagged(x) for x in v]}
    if isinstance(v, dict):
        return {"t": "dict", "v": {k: tagged(x) for k, x in v.items()}}
    raise TypeError(type(v))


SHAPES = {
    "scalars": {
        "zero": 0, "u8": 255, "u16": 65535, "u32": 2**32 - 1, "i64": 2**63 - 1,
        "negative": -1, "min": -(2**63), "u64": 2**64 - 1, "big": 2**63,
        "real": 0.1, "negreal": -2.5e300, "inf": float("inf"), "tiny": 5e-324,
        "yes": True, "no": False, "empty": "", "ascii": "hello",
        "unicode": "h\u00e9llo \u2713 \u65e5\u672c \U0001F600",
        "data": b"\x00\x01\xff", "nodata": b"",
        "date": datetime.datetime(2026, 1, 2, 3, 4, 5),
        "olddate": datetime.datetime(1900, 6, 1, 12, 0, 0),
    },
    "containers": {
        "empty_array": [], "empty_dict": {}, "nested": [[[1]], {"a": {"b": []}}],
        "long_array": list(range(20)), "long_string": "x" * 300,
        "long_data": bytes(range(256)) * 3,
        "long_dict": {"k%02d" % i: i for i in range(40)},
    },
    "shared": {"a": ["same", "same", 7, 7, 7.5, 7.5], "b": "same", "c": [b"d", b"d"]},
    "uids": {"$top": {"root": plistlib.UID(1)}, "$objects": ["$null", plistlib.UID(255), plistlib.UID(65536), plistlib.UID(2**32 - 1)]},
    "array_root": [1, "two", 3.0, True],
    "string_root": "only a string",
    "many_objects": {"k%04d" % i: "value %d" % i for i in range(600)},
    "wide_offsets": {"blob": bytes(66000), "after": "end", "n": list(range(300))},
}

for name, value in SHAPES.items():
    for sort in (True, False):
        suffix = "" if sort else "_unsorted"
        data = plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=sort)
        with open("binary/%s%s.plist" % (name, suffix), "wb") as f:
            f.write(data)
    with open("binary/%s.json" % name, "w") as f:
        json.dump(tagged(value), f, sort_keys=True)
        f.write("\n")
