#!/usr/bin/env bash
# Benchmarks/processes/run.sh: the "Many processes, one domain" benchmark of
# BENCHMARKS.md.
#
# libprefs (its C API, from C) against Foundation's UserDefaults (Swift,
# -O), side by side, with several processes on one domain:
#
#   1. lost keys: 16 processes released together, each setting 50 new keys
#      then synchronizing, 20 rounds; a fresh process counts the 16,000 keys
#   2. set + synchronize of one key in a 1,000-key domain (median, p90)
#   3. cross-process visibility: (a) does the reader's first read after the
#      writer's synchronize returned see the new value; (b) a reader polling
#      its normal read call: time from the writer's set until it sees it
#   4. observers: time from the writer's set / synchronize until another
#      process's observer is called
#
#   Benchmarks/processes/run.sh           the whole benchmark (about 4 minutes)
#   Benchmarks/processes/run.sh --quick   a smoke test with few iterations
#
# coord.c starts the processes of a case (fork + exec) and connects them
# with pipes; prefs_proc.c (libprefs) and foundation/UserDefaultsProc.swift
# (Foundation, UserDefaults(suiteName: "com.example.bench")) play the roles.
# The processes of one case share a fresh $HOME, $XDG_CONFIG_HOME and
# $XDG_RUNTIME_DIR and nothing else of this environment but PATH; every case
# gets new ones. Results: results/raw.txt (every sample), results/summary.md
# (the tables), printed at the end.
#
# Knobs (environment): PREFS_ROOT (the libprefs source tree to build, default
# this checkout), PREFS_BENCH_PREFIX (where it is installed, default
# /tmp/prefs-bench-proc), PROCS (16), ROUNDS (20), KEYS (50 per process and
# round), LOST_RUNS (3, libprefs), FOUNDATION_LOST_RUNS (3), SYNC_ITERS (200),
# FIRST_TRIALS (200), POLL_TRIALS (200), POLL_TIMEOUT_MS (2000),
# FOUNDATION_POLL_TRIALS (10: the plain Foundation reader never sees the
# change, so each of its trials lasts the whole timeout), OBS_TRIALS (100),
# OBS_TIMEOUT_MS (1000), FOUNDATION_OBS_TRIALS (20, same reason).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The library measured: the enclosing checkout, or another one named by
# PREFS_ROOT (for instance a `git archive` export or a worktree of one commit).
root=$(cd "${PREFS_ROOT:-$here/../..}" && pwd)
prefix=${PREFS_BENCH_PREFIX:-/tmp/prefs-bench-proc}
build=$here/build
results=$here/results

quick=0
invocation="Benchmarks/processes/run.sh${*:+ $*}"
for arg in "$@"; do
    case $arg in
        --quick) quick=1 ;;
        *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
    esac
done

PROCS=${PROCS:-16}
ROUNDS=${ROUNDS:-20}
KEYS=${KEYS:-50}
LOST_RUNS=${LOST_RUNS:-3}
FOUNDATION_LOST_RUNS=${FOUNDATION_LOST_RUNS:-3}
SYNC_ITERS=${SYNC_ITERS:-200}
FIRST_TRIALS=${FIRST_TRIALS:-200}
POLL_TRIALS=${POLL_TRIALS:-200}
POLL_TIMEOUT_MS=${POLL_TIMEOUT_MS:-2000}
FOUNDATION_POLL_TRIALS=${FOUNDATION_POLL_TRIALS:-10}
OBS_TRIALS=${OBS_TRIALS:-100}
OBS_TIMEOUT_MS=${OBS_TIMEOUT_MS:-1000}
FOUNDATION_OBS_TRIALS=${FOUNDATION_OBS_TRIALS:-20}
if [ "$quick" = 1 ]; then
    ROUNDS=3 LOST_RUNS=1 FOUNDATION_LOST_RUNS=1 SYNC_ITERS=20 FIRST_TRIALS=20 POLL_TRIALS=20
    FOUNDATION_POLL_TRIALS=2 OBS_TRIALS=20 FOUNDATION_OBS_TRIALS=2
fi
# A case that runs longer than this is killed (a hung process fails the run).
CASE_TIMEOUT_S=600

step() { printf '\n== %s\n' "$*" >&2; }

# ---------------------------------------------------------------- tools
if ! command -v swiftc >/dev/null && [ -x /opt/swift/usr/bin/swiftc ]; then
    PATH=/opt/swift/usr/bin:$PATH
fi
for tool in cc make pkg-config swiftc; do
    command -v "$tool" >/dev/null || { echo "$tool is required" >&2; exit 1; }
done

# ---------------------------------------------------------------- build
step "installing libprefs from $root into $prefix"
make -s -C "$root" install PREFIX="$prefix" LIBDIR="$prefix/lib" >/dev/null
# A private prefix: the programs name the library's directory (doc/installing.md).
prefs_flags="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs prefs) -Wl,-rpath,$prefix/lib"

step "building the benchmark programs"
mkdir -p "$build" "$results"
cflags="-O2 -std=c99 -Wall -Wextra -D_POSIX_C_SOURCE=200809L"
# shellcheck disable=SC2086
{
    cc $cflags -o "$build/coord" "$here/coord.c"
    cc $cflags -o "$build/prefs_proc" "$here/prefs_proc.c" $prefs_flags -lm
}
swiftc -O "$here/foundation/UserDefaultsProc.swift" -o "$build/userdefaults_proc"

# ---------------------------------------------------------------- isolation
scratch=$(mktemp -d "${TMPDIR:-/tmp}/prefs-proc-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# The 1,000-key domain of the store benchmark (FontName, FontSize,
# key0000...key0997 cycling through string, integer, boolean, real), as
# $XDG_CONFIG_HOME/com.example.bench.plist; both contenders read that file.
fixture=$scratch/fixture
"$here/../store/make_fixture.sh" "$fixture"

runs_made=0
home=
# fresh [fixture]: a new, empty home for the next case ($home); with
# "fixture", the 1,000-key domain is in place.
fresh() {
    runs_made=$((runs_made + 1))
    home=$scratch/run$runs_made
    mkdir -p "$home/config" "$home/run" "$home/managed" "$home/system"
    chmod 700 "$home/run"
    if [ "${1:-}" = fixture ]; then cp "$fixture/com.example.bench.plist" "$home/config/"; fi
}
isolated() {
    env -i PATH="$PATH" LANG=C.UTF-8 HOME="$home" XDG_CONFIG_HOME="$home/config" \
        XDG_RUNTIME_DIR="$home/run" PREFS_MANAGED_DIR="$home/managed" PREFS_SYSTEM_DIR="$home/system" "$@"
}

raw=$results/raw.txt
: >"$raw"
record() { isolated "$@" | tee -a "$raw"; }
coord=$build/coord
P=$build/prefs_proc
F=$build/userdefaults_proc
# pair WRITER-PROGRAM N WRITER-ARG1..N READER-PROGRAM READER-ARGS...:
# one case of a writer and a reader process (see coord.c).
pair() { record "$coord" pair "$CASE_TIMEOUT_S" -- "$1" "${@:3:$2}" -- "${@:$(($2 + 3))}"; }

# The files a case left in its home: where each contender put the domain.
files_note() {
    echo "N lost-files $1 $(cd "$home" && find . -type f -printf '%P (%s bytes); ' | sed 's/; $//')" | tee -a "$raw"
}

# ---------------------------------------------------------------- machine
# shellcheck source=../machine.sh
. "$here/../machine.sh"
versions="$(swiftc --version 2>&1 | head -1); $library"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date +%s)

# ---------------------------------------------------------------- cases
step "1. lost keys: $PROCS processes x $ROUNDS rounds x $KEYS keys ($LOST_RUNS libprefs runs, $FOUNDATION_LOST_RUNS Foundation runs)"
lost_case() { # lost_case CONTENDER PROGRAM OTHER-PROGRAM OTHER-NAME
    fresh
    record "$coord" lost "$1" "$PROCS" "$ROUNDS" "$CASE_TIMEOUT_S" -- "$2" lost "$ROUNDS" "$KEYS"
    files_note "$1"
    record "$2" count "$PROCS" "$ROUNDS" "$KEYS" "$1"
    # The same file counted by the other library (a check of the count).
    record "$3" count "$PROCS" "$ROUNDS" "$KEYS" "$1-by-$4"
}
for ((i = 0; i < LOST_RUNS || i < FOUNDATION_LOST_RUNS; i++)); do
    [ "$i" -ge "$LOST_RUNS" ] || lost_case libprefs "$P" "$F" Foundation
    [ "$i" -ge "$FOUNDATION_LOST_RUNS" ] || lost_case Foundation "$F" "$P" libprefs
done

step "2. set + synchronize of one key in the 1,000-key domain ($SYNC_ITERS times)"
fresh fixture
record "$P" sync1 "$SYNC_ITERS"
fresh fixture
record "$F" sync1 "$SYNC_ITERS"

step "3a. the first read after the writer's synchronize ($FIRST_TRIALS trials)"
fresh fixture
pair "$P" 2 first-writer "$FIRST_TRIALS" "$P" first-reader "$FIRST_TRIALS"
fresh fixture
pair "$F" 2 first-writer "$FIRST_TRIALS" "$F" first-reader "$FIRST_TRIALS" plain
fresh fixture
pair "$F" 2 first-writer "$FIRST_TRIALS" "$F" first-reader "$FIRST_TRIALS" sync

step "3b. a polling reader ($POLL_TRIALS trials; Foundation without synchronize: $FOUNDATION_POLL_TRIALS; timeout $POLL_TIMEOUT_MS ms)"
fresh fixture
pair "$P" 2 poll-writer "$POLL_TRIALS" "$P" poll-reader "$POLL_TRIALS" "$POLL_TIMEOUT_MS"
fresh fixture
pair "$F" 2 poll-writer "$POLL_TRIALS" "$F" poll-reader "$POLL_TRIALS" "$POLL_TIMEOUT_MS" sync
fresh fixture
pair "$F" 2 poll-writer "$FOUNDATION_POLL_TRIALS" "$F" poll-reader "$FOUNDATION_POLL_TRIALS" "$POLL_TIMEOUT_MS" plain

step "4. an observer in another process ($OBS_TRIALS trials; Foundation: $FOUNDATION_OBS_TRIALS; timeout $OBS_TIMEOUT_MS ms)"
fresh fixture
pair "$P" 3 obs-writer "$OBS_TRIALS" "$OBS_TIMEOUT_MS" "$P" obs-reader
fresh fixture
pair "$F" 4 obs-writer "$FOUNDATION_OBS_TRIALS" "$OBS_TIMEOUT_MS" Foundation "$F" obs-reader plain
fresh fixture
pair "$F" 4 obs-writer "$FOUNDATION_OBS_TRIALS" "$OBS_TIMEOUT_MS" Foundation+sync "$F" obs-reader sync

elapsed=$(($(date +%s) - started))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------- report
{
    echo "Machine: $machine."
    echo "Software: $versions."
    echo "Load average (1, 5, 15 min): $load_before before, $load_after after; measured in ${elapsed} s."
    echo "Command: \`$([ -n "${PREFS_ROOT:-}" ] && echo "PREFS_ROOT=$PREFS_ROOT ")$invocation\` (PROCS=$PROCS ROUNDS=$ROUNDS KEYS=$KEYS LOST_RUNS=$LOST_RUNS FOUNDATION_LOST_RUNS=$FOUNDATION_LOST_RUNS SYNC_ITERS=$SYNC_ITERS FIRST_TRIALS=$FIRST_TRIALS POLL_TRIALS=$POLL_TRIALS POLL_TIMEOUT_MS=$POLL_TIMEOUT_MS FOUNDATION_POLL_TRIALS=$FOUNDATION_POLL_TRIALS OBS_TRIALS=$OBS_TRIALS OBS_TIMEOUT_MS=$OBS_TIMEOUT_MS FOUNDATION_OBS_TRIALS=$FOUNDATION_OBS_TRIALS)."
    echo "\"Foundation+sync\": the Foundation reader calls synchronize() before each read (for the observer: every 50 ms from a run-loop timer)."
    echo
    awk -f "$here/../stats.awk" -f "$here/summarize.awk" "$raw"
} >"$results/summary.md"

cat "$results/summary.md"
