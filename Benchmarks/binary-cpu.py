#!/usr/bin/env python3
"""Process CPU time of reading one binary property list, side by side.

Each run is a new process, `codec-bench binary loop WHO FILE 1`: it reads
FILE, parses it once (libprefs or libplist), frees the value and exits, as a
program's first read of a file does. The user+sys CPU time of each process
comes from wait4. libprefs from each codec-bench given (say, one built from
main and one from a branch), libplist and a process that only reads the file
("none") run round-robin, starting from a different one each round, so the
machine's load falls on all of them; medians are printed less the median of
"none" (start-up and reading the file).

    Benchmarks/binary-cpu.py FILE ROUNDS CODEC_BENCH [CODEC_BENCH...]

Make FILE with `codec-bench binary generate 1000000 FILE` (or 20000000).
"""
import os
import statistics
import sys

if len(sys.argv) < 4:
    sys.exit(__doc__)
path, rounds, benches = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
runs = [(b, "prefs") for b in benches] + [(benches[0], "libplist"), (benches[0], "none")]
cpu = {run: [] for run in runs}
for k in range(rounds):
    for bench, who in runs[k % len(runs):] + runs[:k % len(runs)]:
        pid = os.spawnv(os.P_NOWAIT, bench, [bench, "binary", "loop", who, path, "1"])
        _, status, usage = os.wait4(pid, 0)
        if status != 0:
            sys.exit(f"{bench} binary loop {who} {path} 1: exit status {status}")
        cpu[(bench, who)].append((usage.ru_utime + usage.ru_stime) * 1000)
median = {run: statistics.median(samples) for run, samples in cpu.items()}
none = median[(benches[0], "none")]
libplist = median[(benches[0], "libplist")] - none
load = " ".join(open("/proc/loadavg").read().split()[:3])
print(f"{path}: {rounds} rounds; load average at the end {load}")
print(f"user+sys CPU medians, less 'none' ({none:.2f} ms):")
for bench, who in runs[:-1]:
    t = median[(bench, who)] - none
    print(f"  {who:8s} {bench}: {t:8.2f} ms  ({t / libplist:.3f}x libplist)")
