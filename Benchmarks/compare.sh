#!/usr/bin/env bash
# Benchmarks/compare.sh: libprefs side by side with dconf, Qt's QSettings,
# Foundation's UserDefaults and libplist, in one run, at several domain
# sizes (1,000, 100,000 and 1,000,000 keys by default). Prints Markdown
# tables ready to paste into BENCHMARKS.md, naming the commit measured.
#
#   Benchmarks/compare.sh                       every size (about 25 minutes idle)
#   Benchmarks/compare.sh --sizes 1000,100000   the sizes named
#   Benchmarks/compare.sh --timeout 3           minutes each contender gets for
#                                               one measure at one size (default 4)
#   Benchmarks/compare.sh --quick               fewer samples (a smoke test)
#   make bench [BENCH_ARGS="--sizes 1000"]      the same
#
# Measures, each contender in fresh processes with a fresh $HOME:
#   first   a new process's start-up + first read of one key
#   hit     a cached read of an existing key
#   set     a set of an existing key, in memory
#   sync1   one set + synchronize of one key (on disk when it returns)
#   read    `prefs read D K` / `dconf read /D/K`, whole processes
#   parse   parsing the domain's file, XML and binary (libplist's reader,
#           Foundation's PropertyListSerialization)
# Instructions (valgrind --tool=callgrind; the same whatever the machine's
# load) come first, then medians of wall-clock and CPU time and the ratios
# to libprefs. Per-operation instructions (hit, set, sync1) are the
# difference of two runs of different lengths. Callgrind runs some 50 times
# slower than the CPU: it counts up to --callgrind-keys keys (default
# 100,000), and beyond only the whole-process first reads of libprefs and
# dconf (which do not grow with the domain). A contender that does not
# finish a measure in --timeout minutes is shown as "did not finish in N
# min"; dconf, whose `dconf compile` grows faster than linearly, is not
# tried at sizes above one it did not finish.
#
# Reuses the programs of Benchmarks/store (prefs_bench.c, dconf_bench.c,
# foundation/, qsettings_bench.cpp) and the codec-bench package of
# Benchmarks/Sources. Installs what it needs when run as root (Debian):
# valgrind hyperfine dconf-cli libdconf-dev dbus qt6-base-dev libplist-dev
# libxml2-dev pkg-config g++.
#
# Environment: PREFS_ROOT (the libprefs checkout measured, default this
# one), PREFS_BENCH_PREFIX (where it is installed, default a scratch
# folder), TMPDIR (where the fixtures go: 1,000,000 keys take about 130 MB).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "${PREFS_ROOT:-$here/..}" && pwd)
store=$here/store

sizes=1000,100000,1000000
timeout_min=4
callgrind_keys=100000
quick=0
invocation="Benchmarks/compare.sh${*:+ $*}"
usage() { echo "usage: $0 [--sizes N,N,...] [--timeout MINUTES] [--callgrind-keys N] [--quick]" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
        --sizes) [ $# -ge 2 ] || usage; sizes=$2; shift 2 ;;
        --sizes=*) sizes=${1#--sizes=}; shift ;;
        --timeout) [ $# -ge 2 ] || usage; timeout_min=$2; shift 2 ;;
        --timeout=*) timeout_min=${1#--timeout=}; shift ;;
        --callgrind-keys) [ $# -ge 2 ] || usage; callgrind_keys=$2; shift 2 ;;
        --callgrind-keys=*) callgrind_keys=${1#--callgrind-keys=}; shift ;;
        --quick) quick=1; shift ;;
        *) usage ;;
    esac
done
IFS=, read -r -a size_list <<<"$sizes"
for n in "${size_list[@]}" "$timeout_min" "$callgrind_keys"; do
    case $n in '' | *[!0-9]*) usage ;; esac
done
for n in "${size_list[@]}"; do
    [ "$n" -ge 502 ] || { echo "compare.sh: a size must be at least 502 keys" >&2; exit 2; }
done
limit=$((timeout_min * 60))

step() { printf '== %s: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# ---------------------------------------------------------------- tools
if ! command -v swiftc >/dev/null && [ -x /opt/swift/usr/bin/swiftc ]; then PATH=/opt/swift/usr/bin:$PATH; fi
missing=()
need() { command -v "$1" >/dev/null || missing+=("$2"); }
need valgrind valgrind
need hyperfine hyperfine
need dconf dconf-cli
need dbus-run-session dbus
need g++ g++
need pkg-config pkg-config
if command -v pkg-config >/dev/null; then
    pkg-config --exists dconf || missing+=(libdconf-dev)
    pkg-config --exists Qt6Core || missing+=(qt6-base-dev)
    pkg-config --exists libplist-2.0 || missing+=(libplist-dev)
    pkg-config --exists libxml-2.0 || missing+=(libxml2-dev)
fi
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        step "installing ${missing[*]}"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}") >&2
    else
        echo "compare.sh: missing ${missing[*]} (apt-get install ${missing[*]}, or run as root)" >&2
        exit 1
    fi
fi
for tool in cc g++ swift swiftc valgrind hyperfine dconf dbus-run-session timeout; do
    command -v "$tool" >/dev/null || { echo "compare.sh: $tool is required" >&2; exit 1; }
done

# ---------------------------------------------------------------- build
scratch=$(mktemp -d "${TMPDIR:-/tmp}/prefs-compare.XXXXXX")
# On exit, interrupted or not: end the measure under way (timeout runs it
# in a process group of its own, which a ^C does not reach), then remove
# the scratch folder.
cleanup() {
    local pid
    pid=$(cat "$scratch/bounded.pid" 2>/dev/null) || pid=
    if [ -n "$pid" ] && kill -TERM -- "-$pid" 2>/dev/null; then
        # Let it end (valgrind writes its files as it does) for up to 15 s.
        for _ in $(seq 1 75); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.2; done
    fi
    rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
prefix=${PREFS_BENCH_PREFIX:-$scratch/prefix}
build=$scratch/build
mkdir -p "$build"

step "installing libprefs ($root) into $prefix"
make -s -C "$root" install PREFIX="$prefix" LIBDIR="$prefix/lib" >"$scratch/install.log" 2>&1 ||
    { tail -30 "$scratch/install.log" >&2; exit 1; }
prefs_flags="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs prefs) -Wl,-rpath,$prefix/lib"
dconf_flags=$(pkg-config --cflags --libs dconf)
qt_flags=$(pkg-config --cflags --libs Qt6Core)

step "building the benchmark programs"
# -fno-inline: callgrind finds the loops by their functions' names.
cflags="-O2 -fno-inline -std=c99 -Wall -Wextra -D_POSIX_C_SOURCE=200809L"
# shellcheck disable=SC2086
{
    cc $cflags -o "$build/prefs_bench" "$store/prefs_bench.c" $prefs_flags
    cc $cflags -o "$build/startup_prefs" "$store/startup_prefs.c" $prefs_flags
    cc $cflags -o "$build/dconf_bench" "$store/dconf_bench.c" $dconf_flags
    cc $cflags -o "$build/startup_dconf" "$store/startup_dconf.c" $dconf_flags
    g++ -O2 -fno-inline -std=c++17 -fPIC -Wall -o "$build/qsettings_bench" "$store/qsettings_bench.cpp" $qt_flags
}
swiftc -O "$store/foundation/UserDefaultsBench.swift" -o "$build/userdefaults_bench" 2>"$scratch/swiftc.log" ||
    { cat "$scratch/swiftc.log" >&2; exit 1; }
swiftc -O "$store/foundation/Startup.swift" -o "$build/startup_foundation" 2>>"$scratch/swiftc.log" ||
    { cat "$scratch/swiftc.log" >&2; exit 1; }
step "building codec-bench (release)"
(cd "$here" && swift build -c release --product codec-bench) >"$scratch/codec-build.log" 2>&1 ||
    { tail -30 "$scratch/codec-build.log" >&2; exit 1; }
# Without its debug information: valgrind 3.19 gives up on the DWARF 5
# that the toolchain writes.
cp "$(cd "$here" && swift build -c release --show-bin-path)/codec-bench" "$build/codec-bench"
strip --strip-debug "$build/codec-bench"
codec=$build/codec-bench

# ---------------------------------------------------------------- machine
# shellcheck source=machine.sh
. "$here/machine.sh"
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "not a git checkout")
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date +%s)

if [ "$quick" = 1 ]; then RUNS=3 READ_ITERS=20000 SET_ITERS=2000; else RUNS=11 READ_ITERS=200000 SET_ITERS=20000; fi

# ---------------------------------------------------------------- results
# One line per figure: SIZE MEASURE CONTENDER KIND VALUE, KIND one of
# instr (instructions), wall and cpu (medians, in the unit of UNIT lines),
# dnf (did not finish: VALUE minutes), na (the contender has no such
# operation).
results=$scratch/results.txt
: >"$results"
record() { echo "$*" >>"$results"; }

# bounded SECONDS CMD...: CMD, killed (with its process group) after SECONDS.
bounded() {
    local secs=$1 pid
    shift
    timeout --kill-after=10 "$secs" "$@" &
    pid=$!
    echo "$pid" >"$scratch/bounded.pid"
    wait "$pid"
}

# An isolated environment: a fresh home per contender and size. Every
# command below runs as "${wrap[@]}" PROGRAM...: wrap is the environment
# (env -i and the variables of that home), followed for dconf's writes by
# dbus-run-session (they go through its service, in a D-Bus session of
# its own). Outputs go into files, never pipes: a D-Bus-activated
# dconf-service can outlive its session and would hold a pipe open.
home=
pre=()
wrap=()
new_home() {
    home=$scratch/home-$1-$2
    rm -rf "$home"
    mkdir -p "$home/.cache" "$home/config/dconf" "$home/run" "$home/managed" "$home/system"
    chmod 700 "$home/run"
    printf 'user-db:user\n' >"$home/profile"
    pre=(env -i PATH="$PATH" LANG=C.UTF-8 HOME="$home" XDG_CONFIG_HOME="$home/config"
        XDG_RUNTIME_DIR="$home/run" DCONF_PROFILE="$home/profile"
        PREFS_MANAGED_DIR="$home/managed" PREFS_SYSTEM_DIR="$home/system")
    wrap=("${pre[@]}")
}
plain() { wrap=("${pre[@]}"); }
session() { wrap=("${pre[@]}" dbus-run-session --); }

# instructions CMD...: the instructions callgrind counts for one run of CMD
# (empty if it failed or was cut off).
instructions() {
    local log=$scratch/callgrind.log
    bounded "$limit" "${wrap[@]}" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" </dev/null >/dev/null 2>"$log" || return 1
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$log" | tail -1
}
# instructions_in FUNCTION CMD...: the instructions of the calling (first)
# thread inside the bench program's loop function (reads or sets: their C,
# C++ and Swift names), the set-up before and the exit after left out.
# libprefs' writer thread commits pending sets in the background, and
# under callgrind's slowness it did so within a loop of sets, or at the
# exit of one run and not of the other: whole-process differences
# counted a synchronize into every set.
instructions_in() {
    local fn=$1 log=$scratch/callgrind.log out=$scratch/callgrind.out swift
    shift
    case $fn in reads) swift='*5reads_3key8expected*' ;; *) swift='*4setsyyF' ;; esac
    rm -f "$out"*
    bounded "$limit" "${wrap[@]}" valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out" \
        --collect-atstart=no --toggle-collect="$fn" --toggle-collect="$fn(*" --toggle-collect="$swift" "$@" \
        </dev/null >/dev/null 2>"$log" || return 1
    sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out-01" | head -1
}
# median_line CASE: the median of the samples of an R line of the bench programs.
median_line() {
    awk -v c="$1" '$1 == "R" && $2 == c { for (i = 6; i <= NF; i++) print $i }' |
        sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# timed_processes SIZE MEASURE CONTENDER CMD...: hyperfine's median wall time
# of CMD as a whole process, and its mean user + system time.
timed_processes() {
    local size=$1 measure=$2 who=$3 runs csv=$scratch/hyperfine.csv
    shift 3
    runs=$((size >= 1000000 ? 3 : size >= 100000 ? 10 : 50))
    [ "$quick" = 1 ] && runs=$((runs > 5 ? 5 : runs))
    if bounded "$limit" "${wrap[@]}" "$@" </dev/null >/dev/null 2>&1 &&
        bounded $((limit * 2)) hyperfine -N --warmup 1 --runs "$runs" --export-csv "$csv" \
            -- "$(printf '%q ' "${wrap[@]}" "$@")" </dev/null >"$scratch/hyperfine.log" 2>&1; then
        record "$size $measure $who wall $(awk -F, 'NR == 2 { print $4 * 1000 }' "$csv")"
        record "$size $measure $who cpu $(awk -F, 'NR == 2 { print ($5 + $6) * 1000 }' "$csv")"
    else
        record "$size $measure $who dnf $timeout_min"
    fi
}
# counted SIZE MEASURE CONTENDER CMD...: callgrind's instructions of CMD
# (up to --callgrind-keys keys; counted_always: at every size).
counted() {
    [ "$1" -le "$callgrind_keys" ] || return 0
    counted_always "$@"
}
counted_always() {
    local size=$1 measure=$2 who=$3 n
    shift 3
    if n=$(instructions "$@") && [ -n "$n" ]; then record "$size $measure $who instr $n"; else record "$size $measure $who dnf $timeout_min"; fi
}
# per_op SIZE MEASURE CONTENDER SMALL LARGE CMD...: instructions of one
# operation in the loop: (CMD 1 LARGE - CMD 1 SMALL) / (LARGE - SMALL).
per_op() {
    local size=$1 measure=$2 who=$3 small=$4 large=$5 a b fn=sets
    shift 5
    [ "$measure" = hit ] && fn=reads
    if [ "$size" -gt "$callgrind_keys" ]; then return 0; fi
    if a=$(instructions_in "$fn" "$@" 1 "$small") && b=$(instructions_in "$fn" "$@" 1 "$large") &&
        [ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ]; then
        record "$size $measure $who instr $(((b - a) / (large - small)))"
    else
        record "$size $measure $who dnf $timeout_min"
    fi
}
# looped SIZE CONTENDER CMD...: the hit and set loops of a bench program
# (median ns of wall and CPU time per operation).
looped() {
    local size=$1 who=$2 out=$scratch/loop.out case
    shift 2
    for case in hit set; do
        local iters=$READ_ITERS
        [ "$case" = set ] && iters=$SET_ITERS
        if bounded "$limit" "${wrap[@]}" "$@" "$case" "$RUNS" "$iters" </dev/null >"$out" 2>"$scratch/loop.err" && grep -q "^R $case " "$out"; then
            record "$size $case $who wall $(median_line "$case" <"$out")"
            record "$size $case $who cpu $(median_line "$case-cpu" <"$out")"
        else
            cat "$scratch/loop.err" >&2
            record "$size $case $who dnf $timeout_min"
        fi
    done
}
# synced SIZE CONTENDER CMD...: sync1 (median ms, wall), and its
# instructions: a run with two set + synchronize rounds minus a run with one.
synced() {
    local size=$1 who=$2 out=$scratch/sync.out a b
    shift 2
    local runs=$((size >= 1000000 ? 3 : size >= 100000 ? 5 : RUNS))
    if bounded "$limit" "${wrap[@]}" "$@" sync1 "$runs" </dev/null >"$out" 2>"$scratch/sync.err" && grep -q '^R sync1 ' "$out"; then
        record "$size sync1 $who wall $(median_line sync1 <"$out")"
    else
        cat "$scratch/sync.err" >&2
        record "$size sync1 $who dnf $timeout_min"
        return 0
    fi
    [ "$size" -le "$callgrind_keys" ] || return 0
    if a=$(instructions "$@" sync1 1) && b=$(instructions "$@" sync1 2) && [ -n "$a" ] && [ -n "$b" ]; then
        record "$size sync1 $who instr $((b - a))"
    else
        record "$size sync1 $who dnf $timeout_min"
    fi
}

# ---------------------------------------------------------------- sizes
# dconf compile grows faster than linearly: once a size did not finish,
# larger ones are not tried.
dconf_failed_at=
for size in "${size_list[@]}"; do
    fixture=$scratch/fixture-$size
    step "$size keys: fixtures"
    "$store/make_fixture.sh" "$fixture" "$size"
    plist=$fixture/com.example.bench.plist
    # The binary file as libprefs writes it (laid out as CoreFoundation
    # and plistlib do); plistutil took minutes for 1,000,000 keys.
    "$prefix/bin/prefs" convert -convert binary1 -o "$fixture/bench.bplist" "$plist"
    record "$size bytes xml $(wc -c <"$plist")"
    record "$size bytes binary $(wc -c <"$fixture/bench.bplist")"

    # libprefs: a write makes the domain's index, as in any domain
    # libprefs has written once.
    step "$size keys: libprefs"
    new_home libprefs "$size"
    cp "$plist" "$home/config/"
    if bounded "$limit" "${pre[@]}" "$prefix/bin/prefs" write com.example.bench FontSize -int 15 </dev/null >/dev/null 2>"$scratch/prefs.err" &&
        [ "$("${pre[@]}" "$prefix/bin/prefs" read com.example.bench key0500 </dev/null)" = "value 500" ]; then
        counted_always "$size" first libprefs "$build/startup_prefs"
        timed_processes "$size" first libprefs "$build/startup_prefs"
        counted_always "$size" read libprefs "$prefix/bin/prefs" read com.example.bench key0500
        timed_processes "$size" read libprefs "$prefix/bin/prefs" read com.example.bench key0500
        looped "$size" libprefs "$build/prefs_bench"
        per_op "$size" hit libprefs 1000 11000 "$build/prefs_bench" hit
        per_op "$size" set libprefs 1000 11000 "$build/prefs_bench" set
        synced "$size" libprefs "$build/prefs_bench"
    else
        cat "$scratch/prefs.err" >&2
        for m in first read hit set sync1; do record "$size $m libprefs dnf $timeout_min"; done
    fi

    step "$size keys: dconf"
    new_home dconf "$size"
    # The user database, compiled from the key file (dconf compile), in
    # place of `dconf load` through the service: the faster way in.
    mkdir -p "$scratch/dconf-$size.d"
    { echo "[bench]"; tail -n +2 "$fixture/bench.dconf"; } >"$scratch/dconf-$size.d/bench"
    if [ -n "$dconf_failed_at" ]; then
        for m in first read hit set sync1; do record "$size $m dconf skipped $dconf_failed_at"; done
    elif bounded "$limit" dconf compile "$home/config/dconf/user" "$scratch/dconf-$size.d" 2>"$scratch/dconf.err" &&
        [ "$("${pre[@]}" dconf read /bench/key0500 </dev/null)" = "'value 500'" ]; then
        # Reads open the database file: no D-Bus session.
        plain
        counted_always "$size" first dconf "$build/startup_dconf"
        timed_processes "$size" first dconf "$build/startup_dconf"
        counted_always "$size" read dconf dconf read /bench/key0500
        timed_processes "$size" read dconf dconf read /bench/key0500
        session
        looped "$size" dconf "$build/dconf_bench"
        per_op "$size" hit dconf 1000 11000 "$build/dconf_bench" hit
        per_op "$size" set dconf 1000 11000 "$build/dconf_bench" set
        synced "$size" dconf "$build/dconf_bench"
    else
        cat "$scratch/dconf.err" >&2
        echo "compare.sh: dconf compile of $size keys did not finish in $timeout_min min" >&2
        dconf_failed_at=$size
        for m in first read hit set sync1; do record "$size $m dconf dnf $timeout_min"; done
    fi

    step "$size keys: Foundation"
    new_home foundation "$size"
    cp "$plist" "$home/config/"
    counted "$size" first Foundation "$build/startup_foundation"
    timed_processes "$size" first Foundation "$build/startup_foundation"
    looped "$size" Foundation "$build/userdefaults_bench"
    per_op "$size" hit Foundation 1000 11000 "$build/userdefaults_bench" hit
    per_op "$size" set Foundation 1000 11000 "$build/userdefaults_bench" set
    synced "$size" Foundation "$build/userdefaults_bench"

    step "$size keys: QSettings"
    new_home qsettings "$size"
    cp "$fixture/bench.ini" "$home/config/"
    counted "$size" first QSettings "$build/qsettings_bench" first
    timed_processes "$size" first QSettings "$build/qsettings_bench" first
    looped "$size" QSettings "$build/qsettings_bench"
    per_op "$size" hit QSettings 1000 11000 "$build/qsettings_bench" hit
    per_op "$size" set QSettings 1000 11000 "$build/qsettings_bench" set
    synced "$size" QSettings "$build/qsettings_bench"

    step "$size keys: parsers"
    new_home parsers "$size"
    for form in xml binary; do
        file=$plist
        [ "$form" = binary ] && file=$fixture/bench.bplist
        if [ "$size" -le "$callgrind_keys" ] && base=$(instructions "$codec" binary loop none "$file" 0) && [ -n "$base" ]; then
            for who in prefs libplist foundation; do
                name=$who
                [ "$who" = prefs ] && name=libprefs
                [ "$who" = libplist ] && name=libplist
                [ "$who" = foundation ] && name=Foundation
                if n=$(instructions "$codec" binary loop "$who" "$file" 1) && [ -n "$n" ]; then
                    record "$size parse-$form $name instr $((n - base))"
                else
                    record "$size parse-$form $name dnf $timeout_min"
                fi
            done
        fi
        # binary compare times each reader from three heaps, with two
        # warm-up parses each: 5 × 3 parses per reader at 1,000,000 keys.
        reps=$((size >= 1000000 ? 1 : size >= 100000 ? 5 : 51))
        [ "$quick" = 1 ] && reps=3
        if bounded $((limit * 2)) "$codec" binary compare "$file" "$reps" >"$scratch/compare.out" 2>&1; then
            # fresh heap: libprefs 1.23 ms (CPU 1.20 ms), libplist ... (CPU ...), ...
            awk -v s="$size" -v f="parse-$form" '/^fresh heap:/ {
                n = split($0, w, /[ (),]+/)
                for (i = 1; i <= n; i++) {
                    if (w[i] == "libprefs" || w[i] == "libplist") who = w[i]
                    if (w[i] ~ /^[0-9.]+$/ && (w[i + 1] == "ms" || w[i + 1] == "s" || w[i + 1] == "µs" || w[i + 1] == "ns")) {
                        v = w[i] * (w[i + 1] == "s" ? 1000 : w[i + 1] == "µs" ? 0.001 : w[i + 1] == "ns" ? 1e-6 : 1)
                        kind = (w[i - 1] == "CPU") ? "cpu" : "wall"
                        printf "%s %s %s %s %s\n", s, f, who, kind, v
                    }
                }
            }' "$scratch/compare.out" >>"$results"
        else
            record "$size parse-$form libprefs dnf $((timeout_min * 2))"
            record "$size parse-$form libplist dnf $((timeout_min * 2))"
        fi
    done
    rm -rf "$fixture" "$scratch"/home-*-"$size" "$scratch/dconf-$size.d"
done

elapsed=$(($(date +%s) - started))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
cp "$results" "${TMPDIR:-/tmp}/prefs-compare-results.txt"

# ---------------------------------------------------------------- report
echo "Commit measured: $commit ($library). Command: \`$([ -n "${PREFS_ROOT:-}" ] && echo "PREFS_ROOT=$PREFS_ROOT ")$invocation\`."
echo "Machine: $machine. Load average (1, 5, 15 min): $load_before before, $load_after after; measured in $((elapsed / 60)) min $((elapsed % 60)) s."
echo "Software: $(swiftc --version 2>&1 | head -1); dconf $(pkg-config --modversion dconf); Qt $(pkg-config --modversion Qt6Core); libplist $(pkg-config --modversion libplist-2.0); $(hyperfine --version)."
echo
awk -f "$here/compare.awk" "$results"
