#!/usr/bin/env python3
"""foreign_domain.py N FILE: writes FILE, a domain of N keys as another
program writes it (Python's plistlib, XML, no libprefs index): key1...keyN,
cycling an integer, a two-item array and a string. Benchmarks/firstread
and Benchmarks/readfile read it."""
import plistlib
import sys

n, path = int(sys.argv[1]), sys.argv[2]
d = {}
for i in range(1, n + 1):
    d[f"key{i}"] = f"string {i}" if i % 3 == 0 else (i * 1000 if i % 3 == 1 else [f"a{i}", i])
with open(path, "wb") as f:
    plistlib.dump(d, f)
