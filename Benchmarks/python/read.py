#!/usr/bin/env python3
"""A cached read from Python: the prefs package beside plistlib and a dict.

    PREFS_LIBRARY=build/stage/lib/libprefs.so.1 PYTHONPATH=bindings/python \\
        python3 Benchmarks/python/read.py [ROUNDS] [READS]

One domain of KEYS keys (default 20) is written through prefs and
synchronized into a private XDG_CONFIG_HOME. Each round times READS reads
of one integer key by every contender, one after the other, so that all
meet the same load; the report gives each contender's median over ROUNDS
rounds (default 11 rounds of 200,000 reads; the plistlib re-read does
READS / 100, being that much slower).

Contenders:
  dict            d["FontSize"] on the dict plistlib parsed once (sees no
                  other process's change)
  prefs p[key]    prefs.Preferences(...)["FontSize"] (sees other processes'
                  synchronized changes at the next read)
  prefs p.get     the same through get()
  ctypes floor    PrefsCopyAppValue + PrefsRelease through ctypes, no
                  conversion, no error check: what any ctypes binding pays
  plistlib load   plistlib.load of the domain file, then the lookup: what a
                  program without libprefs pays to be as fresh
"""

from __future__ import annotations

import os
import platform
import plistlib
import statistics
import sys
import tempfile
import time

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 11
READS = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
KEYS = int(os.environ.get("KEYS", "20"))

sandbox = tempfile.mkdtemp(prefix="prefs-bench-")
for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "PREFS_SYSTEM_DIR", "PREFS_MANAGED_DIR"):
    os.environ[name] = os.path.join(sandbox, name.lower())

import prefs  # noqa: E402
from prefs import _lib  # noqa: E402

APP = "com.example.bench"
p = prefs.Preferences(APP)
for i in range(KEYS - 1):
    p[f"Key{i:03}"] = f"value {i}"
p["FontSize"] = 14
p.synchronize()
path = os.path.join(os.environ["XDG_CONFIG_HOME"], f"{APP}.plist")
with open(path, "rb") as f:
    d = plistlib.load(f)
assert d["FontSize"] == p["FontSize"] == p.get("FontSize") == 14


def bench_empty(n: int) -> None:
    for _ in range(n):
        pass


def bench_dict(n: int) -> None:
    for _ in range(n):
        d["FontSize"]


def bench_prefs(n: int) -> None:
    for _ in range(n):
        p["FontSize"]


def bench_get(n: int) -> None:
    get = p.get
    for _ in range(n):
        get("FontSize")


def bench_floor(n: int) -> None:
    copy, release, key, app = _lib.CopyAppValue, _lib.Release, b"FontSize", APP.encode()
    for _ in range(n):
        release(copy(key, app))


def bench_plistlib(n: int) -> None:
    for _ in range(n):
        with open(path, "rb") as f:
            plistlib.load(f)["FontSize"]


CONTENDERS = [
    ("dict lookup (plistlib's dict, parsed once)", bench_dict, 1),
    ("prefs `p[\"FontSize\"]`", bench_prefs, 1),
    ("prefs `p.get(\"FontSize\")`", bench_get, 1),
    ("ctypes floor: PrefsCopyAppValue + PrefsRelease", bench_floor, 1),
    ("plistlib.load of the file, then the lookup", bench_plistlib, 100),
    ("the empty loop (subtracted from the times above)", bench_empty, 1),
]

if "ONLY" in os.environ:
    # One contender, once, for an instruction count (see BENCHMARKS.md):
    # ONLY=<index in CONTENDERS> under callgrind, at two READS.
    name, fn, divisor = CONTENDERS[int(os.environ["ONLY"])]
    fn(READS // divisor)
    sys.exit(0)

results: dict = {name: [] for name, _, _ in CONTENDERS}
for _ in range(ROUNDS):
    for name, fn, divisor in CONTENDERS:
        n = READS // divisor
        start = time.perf_counter_ns()
        fn(n)
        elapsed = time.perf_counter_ns() - start
        start = time.perf_counter_ns()
        bench_empty(n)
        loop = time.perf_counter_ns() - start
        results[name].append((elapsed - loop) / n)

print(f"python {platform.python_version()}, {prefs.LIBRARY_PATH} ({prefs.LIBRARY_VERSION}), "
      f"{KEYS} keys, {ROUNDS} rounds of {READS} reads, load average {os.getloadavg()[0]:.1f}")
print(f"{'contender':<50} {'median ns/read':>15} {'min':>10}")
for name, _, _ in CONTENDERS:
    values = results[name]
    print(f"{name:<50} {statistics.median(values):>15.1f} {min(values):>10.1f}")

import shutil  # noqa: E402

shutil.rmtree(sandbox, ignore_errors=True)
