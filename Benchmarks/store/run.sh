#!/usr/bin/env bash
# Benchmarks/store/run.sh: the "Preferences store" benchmark of BENCHMARKS.md.
#
# libprefs (its C API, from C) against Foundation's UserDefaults (Swift,
# -O) and dconf's C client, side by side, with the same keys and values:
# cached reads (a hit, a fall-through to the registration domain, a miss),
# sets, 10,000 new keys then one synchronize, the per-set cost as pending
# keys grow, a synchronize of one key in a 1,000-key domain, a new process's
# start-up plus first read, `prefs read` against `dconf read` (whole
# processes), the system calls of cached reads, and instruction counts
# (callgrind) of start-up plus first read, of the whole `read` commands and
# of a set.
#
#   Benchmarks/store/run.sh             the whole benchmark (about 3-5 minutes)
#   Benchmarks/store/run.sh --quick     a smoke test with few iterations
#   Benchmarks/store/run.sh --profile   also profile libprefs' read path (callgrind)
#
# Every benchmark process gets a fresh $HOME, $XDG_CONFIG_HOME and
# $XDG_RUNTIME_DIR and nothing else of this environment but PATH. dconf
# processes run in a D-Bus session of their own (dbus-run-session), whose
# database is first loaded with `dconf load`. Results: results/raw.txt
# (every sample), results/summary.md (the tables), printed at the end.
#
# Knobs (environment): PREFS_ROOT (the libprefs source tree to build,
# default this checkout), PREFS_BENCH_PREFIX (where it is installed,
# default /tmp/prefs-bench), RUNS (samples per loop, 15), READ_ITERS
# (reads per sample, 100000), SET_ITERS (sets per sample, 5000),
# STARTUP_RUNS (processes per program, 100), BULK_RUNS (processes for
# libprefs and dconf, 5), FOUNDATION_BULK_RUNS (1: a Foundation run of the
# bulk and growth cases takes a minute or more).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The library measured: the enclosing checkout, or another one named by
# PREFS_ROOT (for instance a `git archive` export of one commit).
root=$(cd "${PREFS_ROOT:-$here/../..}" && pwd)
prefix=${PREFS_BENCH_PREFIX:-/tmp/prefs-bench}
build=$here/build
results=$here/results

quick=0 profile=0
invocation="Benchmarks/store/run.sh${*:+ $*}"
for arg in "$@"; do
    case $arg in
        --quick) quick=1 ;;
        --profile) profile=1 ;;
        *) echo "usage: $0 [--quick] [--profile]" >&2; exit 2 ;;
    esac
done

RUNS=${RUNS:-15}
READ_ITERS=${READ_ITERS:-100000}
SET_ITERS=${SET_ITERS:-5000}
STARTUP_RUNS=${STARTUP_RUNS:-100}
BULK_RUNS=${BULK_RUNS:-5}
FOUNDATION_BULK_RUNS=${FOUNDATION_BULK_RUNS:-1}
BULK_KEYS=10000
if [ "$quick" = 1 ]; then
    RUNS=3 READ_ITERS=10000 SET_ITERS=500 STARTUP_RUNS=10 BULK_RUNS=1 FOUNDATION_BULK_RUNS=0
fi

step() { printf '\n== %s\n' "$*" >&2; }

# ---------------------------------------------------------------- tools
if ! command -v swiftc >/dev/null && [ -x /opt/swift/usr/bin/swiftc ]; then
    PATH=/opt/swift/usr/bin:$PATH
fi
missing=()
command -v dconf >/dev/null || missing+=(dconf-cli)
pkg-config --exists dconf 2>/dev/null || missing+=(libdconf-dev)
command -v dbus-run-session >/dev/null || missing+=(dbus)
command -v strace >/dev/null || missing+=(strace)
command -v hyperfine >/dev/null || missing+=(hyperfine)
command -v valgrind >/dev/null || missing+=(valgrind)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        step "installing ${missing[*]}"
        (apt-get update -qq && apt-get install -y -qq "${missing[@]}") >/dev/null
    else
        echo "missing: ${missing[*]} (apt-get install ${missing[*]})" >&2
        command -v hyperfine >/dev/null || echo "(without hyperfine, start-up is timed by spawn_timer.c)" >&2
    fi
fi
for tool in cc pkg-config swiftc dconf dbus-run-session strace valgrind; do
    command -v "$tool" >/dev/null || { echo "$tool is required" >&2; exit 1; }
done

# ---------------------------------------------------------------- build
step "installing libprefs into $prefix"
make -s -C "$root" install PREFIX="$prefix" LIBDIR="$prefix/lib" >/dev/null
# A private prefix: the programs name the library's directory (doc/installing.md).
prefs_flags="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs prefs) -Wl,-rpath,$prefix/lib"
dconf_flags=$(pkg-config --cflags --libs dconf)

step "building the benchmark programs"
mkdir -p "$build" "$results"
cflags="-O2 -std=c99 -Wall -Wextra -D_POSIX_C_SOURCE=200809L"
# shellcheck disable=SC2086
{
    cc $cflags -g -o "$build/prefs_bench" "$here/prefs_bench.c" $prefs_flags
    cc $cflags -o "$build/startup_prefs" "$here/startup_prefs.c" $prefs_flags
    cc $cflags -o "$build/dconf_bench" "$here/dconf_bench.c" $dconf_flags
    cc $cflags -o "$build/startup_dconf" "$here/startup_dconf.c" $dconf_flags
    cc $cflags -o "$build/startup_empty" "$here/startup_empty.c"
    cc -O2 -std=c99 -Wall -Wextra -D_GNU_SOURCE -o "$build/spawn_timer" "$here/spawn_timer.c" -lm
}
swiftc -O "$here/foundation/UserDefaultsBench.swift" -o "$build/userdefaults_bench"
swiftc -O "$here/foundation/Startup.swift" -o "$build/startup_foundation"

# ---------------------------------------------------------------- isolation
scratch=$(mktemp -d "${TMPDIR:-/tmp}/prefs-store-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
fixture=$scratch/fixture
"$here/make_fixture.sh" "$fixture"
dconf compile "$fixture/defaults.gvdb" "$fixture/defaults.d"

runs_made=0
home=
# fresh [fixture]: a new, empty home for the next process ($home); with
# "fixture", the 1,000-key domain is in place for libprefs and Foundation.
fresh() {
    runs_made=$((runs_made + 1))
    home=$scratch/run$runs_made
    # .cache as in a user's home: libprefs keeps its domain indexes there.
    mkdir -p "$home/.cache" "$home/config" "$home/run" "$home/managed" "$home/system"
    chmod 700 "$home/run"
    printf 'user-db:user\nfile-db:%s\n' "$fixture/defaults.gvdb" >"$home/profile"
    if [ "${1:-}" = fixture ]; then cp "$fixture/com.example.bench.plist" "$home/config/"; fi
}
isolated() {
    env -i PATH="$PATH" LANG=C.UTF-8 HOME="$home" XDG_CONFIG_HOME="$home/config" \
        XDG_RUNTIME_DIR="$home/run" DCONF_PROFILE="$home/profile" \
        PREFS_MANAGED_DIR="$home/managed" PREFS_SYSTEM_DIR="$home/system" "$@"
}
# in_session [fixture] CMD...: CMD in a D-Bus session of its own, after
# loading the 1,000 keys into its dconf database when asked. The session
# writes into files, not into the caller's pipe: a D-Bus-activated
# dconf-service can outlive its session, and one holding the pipe kept the
# reader (tee) waiting for ever.
in_session() {
    local load= status=0
    if [ "$1" = fixture ]; then load=$fixture/bench.dconf; shift; fi
    isolated dbus-run-session -- sh -c '
        if [ -n "$1" ]; then dconf load /bench/ <"$1" || exit 1; fi
        shift; exec "$@"' sh "$load" "$@" </dev/null >"$scratch/session.out" 2>"$scratch/session.err" || status=$?
    grep -v '^dbus-daemon' "$scratch/session.err" >&2 || true
    cat "$scratch/session.out"
    return "$status"
}
raw=$results/raw.txt
: >"$raw"
prefs() { fresh "$1"; shift; isolated "$build/prefs_bench" "$@" | tee -a "$raw"; }
foundation() { fresh "$1"; shift; isolated "$build/userdefaults_bench" "$@" | tee -a "$raw"; }
dconf_bench() {
    fresh
    if [ "$1" = fixture ]; then shift; in_session fixture "$build/dconf_bench" "$@"
    else shift; in_session "$build/dconf_bench" "$@"; fi | tee -a "$raw"
}

# ---------------------------------------------------------------- machine
# shellcheck source=../machine.sh
. "$here/../machine.sh"
versions="$(swiftc --version 2>&1 | head -1); dconf $(pkg-config --modversion dconf); $(hyperfine --version 2>/dev/null || echo 'no hyperfine'); $library"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date +%s)

# ---------------------------------------------------------------- cases
step "1-3. cached reads: hit, fall-through to registration, miss ($RUNS x $READ_ITERS each)"
for c in hit registered miss; do
    prefs fixture "$c" "$RUNS" "$READ_ITERS"
    foundation fixture "$c" "$RUNS" "$READ_ITERS"
    dconf_bench fixture "$c" "$RUNS" "$READ_ITERS"
done

step "4. set of an existing key ($RUNS x $SET_ITERS)"
prefs fixture set "$RUNS" "$SET_ITERS"
foundation fixture set "$RUNS" "$SET_ITERS"
dconf_bench fixture set "$RUNS" "$SET_ITERS"

step "5. $BULK_KEYS sets of new keys then one synchronize; per-set cost as pending keys grow"
for ((i = 0; i < BULK_RUNS; i++)); do
    prefs empty bulk "$BULK_KEYS"
    dconf_bench empty bulk "$BULK_KEYS"
    prefs empty growth
    dconf_bench empty growth
done
for ((i = 0; i < FOUNDATION_BULK_RUNS; i++)); do
    foundation empty bulk "$BULK_KEYS"
    foundation empty growth
done

step "6. synchronize of one changed key in a 1,000-key domain ($RUNS times)"
prefs fixture sync1 "$RUNS"
foundation fixture sync1 "$RUNS"
dconf_bench fixture sync1 "$RUNS"

step "7. a new process: start-up plus first read of a 1,000-key domain ($STARTUP_RUNS runs each)"
fresh fixture
in_session fixture true
startup_csv=$results/startup.csv
startup_programs=("$build/startup_empty" "$build/startup_prefs" "$build/startup_foundation" "$build/startup_dconf")
if command -v hyperfine >/dev/null; then
    startup_tool="hyperfine -N --warmup 10 --runs $STARTUP_RUNS"
    isolated hyperfine -N --warmup 10 --runs "$STARTUP_RUNS" --export-csv "$startup_csv" \
        "${startup_programs[@]}" >"$results/startup.log" 2>&1
else
    startup_tool="spawn_timer (fork/exec/wait4), $STARTUP_RUNS runs after 10 warm-up runs"
    isolated "$build/spawn_timer" "$STARTUP_RUNS" 10 "$startup_csv" "${startup_programs[@]}"
fi

step "8. system calls of cached reads (strace -c): 1,000 reads vs 1,000,000 reads"
# The reading thread only (no -f): the library's own threads (the file
# watcher, the writer) wake on timers, so their calls differ from run to
# run whatever the reads do.
syscalls() { awk 'NR > 2 && $NF != "total" && $NF !~ /^-/ { print $NF, $4 }' "$1" | sort; }
fresh fixture
isolated strace -c -o "$results/strace-1.txt" "$build/prefs_bench" loop 1000
fresh fixture
isolated strace -c -o "$results/strace-1000000.txt" "$build/prefs_bench" loop 1000000
if diff <(syscalls "$results/strace-1.txt") <(syscalls "$results/strace-1000000.txt") >"$results/strace.diff"; then
    syscalls_same=yes
else
    syscalls_same=no
fi
total_1=$(awk '$NF == "total" { print $4 }' "$results/strace-1.txt")
total_m=$(awk '$NF == "total" { print $4 }' "$results/strace-1000000.txt")

step "9. whole commands: prefs read D K against dconf read (hyperfine)"
fresh fixture
in_session fixture true >/dev/null
reads_csv=$results/reads.csv
# dconf reads its database file directly; no D-Bus session is needed.
isolated hyperfine -N --warmup 10 --runs "$STARTUP_RUNS" --export-csv "$reads_csv" \
    "$prefix/bin/prefs read com.example.bench key0500" "dconf read /bench/key0500" >"$results/reads.log" 2>&1

step "10. instructions (callgrind): start-up + first read, whole read commands, one set"
# instructions PROGRAM...: the instructions callgrind counts for one run.
instructions() {
    "$@" 2>&1 >/dev/null | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' | tail -1
}
cg=(valgrind --tool=callgrind --callgrind-out-file=/dev/null)
fresh fixture
isolated "$build/startup_prefs" # makes the domain's index, as any write by libprefs does
i_empty=$(instructions isolated "${cg[@]}" "$build/startup_empty")
i_prefs=$(instructions isolated "${cg[@]}" "$build/startup_prefs")
i_dconf=$(instructions in_session fixture "${cg[@]}" "$build/startup_dconf")
i_read_p=$(instructions isolated "${cg[@]}" "$prefix/bin/prefs" read com.example.bench key0500)
i_read_d=$(instructions in_session fixture "${cg[@]}" dconf read /bench/key0500)
# A set's instructions: (11,000 sets - 1,000 sets) / 10,000, one process each.
per_set() { # per_set PREFIX-COMMAND...
    local a b
    a=$(instructions "$@" set 1 1000) b=$(instructions "$@" set 1 11000)
    echo $(((b - a) / 10000))
}
fresh fixture
i_set_p=$(per_set isolated "${cg[@]}" "$build/prefs_bench")
fresh
i_set_d=$(per_set in_session fixture "${cg[@]}" "$build/dconf_bench")

elapsed=$(($(date +%s) - started))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------- report
median_of() { awk -v c="$1" -v p="$2" '$1 == "R" && $2 == c && $3 == p { for (i = 6; i <= NF; i++) print $i }' "$raw" |
    sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
startup_median() { awk -F, -v p="$1" 'NR > 1 && $1 ~ ("/" p "$") { print $4 * 1000 }' "$startup_csv"; }
verdict() { awk "BEGIN { exit !($1) }" && echo met || echo MISSED; }

{
    echo "Machine: $machine."
    echo "Software: $versions."
    echo "Load average (1, 5, 15 min): $load_before before, $load_after after; measured in ${elapsed} s."
    echo "Command: \`$([ -n "${PREFS_ROOT:-}" ] && echo "PREFS_ROOT=$PREFS_ROOT ")$invocation\` (RUNS=$RUNS READ_ITERS=$READ_ITERS SET_ITERS=$SET_ITERS STARTUP_RUNS=$STARTUP_RUNS BULK_RUNS=$BULK_RUNS FOUNDATION_BULK_RUNS=$FOUNDATION_BULK_RUNS)."
    echo
    echo "Loops (wall-clock time; rows ending in -cpu: the thread's CPU time):"
    echo
    awk -f "$here/../stats.awk" -f "$here/summarize.awk" "$raw"
    echo
    grep '^N ' "$raw" | sort | uniq -c | sed 's/^ *\([0-9]*\) N \(.*\)/- \2 (runs: \1)/'
    echo
    echo "Start-up plus first read, whole processes ($startup_tool):"
    echo
    echo "| program | median ms | mean ± σ ms | min–max ms | user + sys ms | median ÷ libprefs |"
    echo "|---|---:|---:|---:|---:|---:|"
    awk -F, -v base="$(startup_median startup_prefs)" 'NR > 1 {
        n = split($1, p, "/")
        printf "| %s | %.2f | %.2f ± %.2f | %.2f–%.2f | %.2f | %.2f× |\n", p[n], $4 * 1000, $2 * 1000, $3 * 1000,
            $7 * 1000, $8 * 1000, ($5 + $6) * 1000, $4 * 1000 / base }' "$startup_csv"
    echo
    echo "System calls of the C read loop's thread: $total_1 with 1,000 reads, $total_m with 1,000,000 reads; per-call counts identical: $syscalls_same."
    echo
    echo "Whole read commands (hyperfine -N, $STARTUP_RUNS runs after 10 warm-up runs):"
    echo
    echo "| command | median ms | mean ± σ ms | user + sys ms |"
    echo "|---|---:|---:|---:|"
    awk -F, 'NR > 1 { printf "| `%s` | %.2f | %.2f ± %.2f | %.2f |\n", $1, $4 * 1000, $2 * 1000, $3 * 1000, ($5 + $6) * 1000 }' "$reads_csv"
    echo
    echo "Instructions (callgrind; one run each, the same for the same binary and input):"
    echo
    # n: a count with thousands separators.
    n() { printf '%s' "$1" | sed -e ':a' -e 's/\B[0-9]\{3\}\>/,&/' -e 'ta'; }
    echo "| case | libprefs | dconf | bare C | libprefs ÷ dconf |"
    echo "|---|---:|---:|---:|---:|"
    echo "| start-up + first read of one key of 1,000 | $(n "$i_prefs") | $(n "$i_dconf") | $(n "$i_empty") | $(awk "BEGIN { printf \"%.2f\", $i_prefs / $i_dconf }") |"
    echo "| \`prefs read\` / \`dconf read\`, whole process | $(n "$i_read_p") | $(n "$i_read_d") | | $(awk "BEGIN { printf \"%.2f\", $i_read_p / $i_read_d }") |"
    echo "| one set of an existing key (client side) | $(n "$i_set_p") | $(n "$i_set_d") | | $(awk "BEGIN { printf \"%.2f\", $i_set_p / $i_set_d }") |"
    echo
    hit_p=$(median_of hit libprefs) hit_f=$(median_of hit Foundation) hit_d=$(median_of hit dconf)
    cpu_p=$(median_of hit-cpu libprefs) cpu_f=$(median_of hit-cpu Foundation) cpu_d=$(median_of hit-cpu dconf)
    g1=$(median_of growth-1000-cpu libprefs) g20=$(median_of growth-20000-cpu libprefs)
    s_p=$(startup_median startup_prefs) s_f=$(startup_median startup_foundation)
    echo "Targets:"
    echo
    echo "- cached hit at least 10x faster than UserDefaults.object(forKey:): $(verdict "$hit_f >= 10 * $hit_p") (wall $(awk "BEGIN { printf \"%.2f\", $hit_f / $hit_p }")×, CPU $(awk "BEGIN { printf \"%.2f\", $cpu_f / $cpu_p }")×)"
    echo "- cached hit no slower than dconf_client_read: $(verdict "$hit_p <= $hit_d") ($(awk "BEGIN { printf \"libprefs %.0f ns vs dconf %.0f ns wall, %.0f vs %.0f ns CPU\", $hit_p, $hit_d, $cpu_p, $cpu_d }"))"
    echo "- cached reads make no system call: $([ "$syscalls_same" = yes ] && echo met || echo MISSED)"
    echo "- 10,000 sets + one synchronize grow linearly (per-set CPU time at 20,000 pending keys within 2x of that at 1,000): $(verdict "$g20 <= 2 * $g1") ($(awk "BEGIN { printf \"%.2f µs at 1,000, %.2f µs at 20,000\", $g1, $g20 }"))"
    echo "- start-up + first read at most a third of Foundation's: $(verdict "$s_p * 3 <= $s_f") ($(awk "BEGIN { printf \"%.2f ms vs %.2f ms, %.2f\", $s_p, $s_f, $s_p / $s_f }"))"
    s_d=$(startup_median startup_dconf) s_e=$(startup_median startup_empty)
    echo "- start-up + first read no slower than dconf's, in time and instructions: $(verdict "$s_p <= $s_d && $i_prefs <= $i_dconf") ($(awk "BEGIN { printf \"%.2f ms vs %.2f ms; %.2f M vs %.2f M instructions\", $s_p, $s_d, $i_prefs / 1e6, $i_dconf / 1e6 }"))"
    echo "- start-up + first read at most 1 ms over the bare C program: $(verdict "$s_p - $s_e <= 1") ($(awk "BEGIN { printf \"%.2f ms over\", $s_p - $s_e }"))"
    r_p=$(awk -F, 'NR == 2 { print $4 * 1000 }' "$reads_csv") r_d=$(awk -F, 'NR == 3 { print $4 * 1000 }' "$reads_csv")
    echo "- \`prefs read\` no slower than \`dconf read\`: $(verdict "$r_p <= $r_d && $i_read_p <= $i_read_d") ($(awk "BEGIN { printf \"%.2f ms vs %.2f ms, %.2f×; %.2f M vs %.2f M instructions\", $r_p, $r_d, $r_p / $r_d, $i_read_p / 1e6, $i_read_d / 1e6 }"))"
    echo "- a set of an existing key at most 3,000 instructions: $(verdict "$i_set_p <= 3000") ($i_set_p)"
    echo
    growth_line="Per-set CPU time at 20,000 pending keys ÷ at 1,000 (1 if linear, about 20 if quadratic):"
    for who in libprefs Foundation dconf; do
        a=$(median_of growth-1000-cpu "$who") b=$(median_of growth-20000-cpu "$who")
        if [ -n "$a" ] && [ -n "$b" ]; then
            growth_line+=$(awk "BEGIN { printf \" %s %.2f µs → %.2f µs (%.1f×);\", \"$who\", $a, $b, $b / $a }")
        fi
    done
    echo "${growth_line%;}."
} >"$results/summary.md"

if [ "$profile" = 1 ]; then
    step "profile of libprefs' read path (callgrind, 100,000 cached hits)"
    fresh fixture
    isolated valgrind --tool=callgrind --callgrind-out-file="$results/callgrind.out" \
        "$build/prefs_bench" hit 1 100000 >/dev/null 2>"$results/callgrind.log"
    demangle() { if command -v swift-demangle >/dev/null; then swift-demangle --simplified; else cat; fi; }
    # top N self|inclusive: the heaviest functions of the profile.
    # callgrind_annotate lists a function once per source file its
    # instructions come from (its own file, and <compiler-generated> for
    # what the compiler added): merged here by name, summed for self cost,
    # the largest for inclusive cost (each line already holds the callees).
    top() {
        local n=$1 mode=$2
        callgrind_annotate --inclusive="$([ "$mode" = inclusive ] && echo yes || echo no)" "$results/callgrind.out" 2>/dev/null |
            awk '/^ *[0-9,]+ \(/ && !/PROGRAM TOTALS|below main|ld-linux|libc-start|prefs_bench.c/' | demangle |
            sed -e 's/ *\[[^]]*\]$//' |
            awk -v mode="$mode" '{
                n = $1; gsub(",", "", n)
                sub(/^ *[0-9,]+ \( *[0-9.]+%\) +/, ""); sub(/^[^:]*:/, "")
                if (!($0 in v)) order[++k] = $0
                if (mode == "self") v[$0] += n; else if (n + 0 > v[$0] + 0) v[$0] = n
            } END { for (i = 1; i <= k; i++) printf "%12d  %s\n", v[order[i]], order[i] }' |
            sort -rn | awk -v n="$n" 'NR <= n' | cut -c1-150 || true
    }
    {
        echo
        echo "Profile of PrefsCopyAppValue + PrefsRelease (callgrind, instructions, 100,000 cached hits after one loading read):"
        echo
        echo "Inclusive:"
        echo
        echo '```'
        top 16 inclusive
        echo '```'
        echo
        echo "Self:"
        echo
        echo '```'
        top 10 self
        echo '```'
    } >>"$results/summary.md"
fi

cat "$results/summary.md"
