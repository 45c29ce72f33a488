#!/usr/bin/env bash
# Benchmarks/store/schema.sh: what an installed schema costs a reader
# (BENCHMARKS.md, "Installed schemas").
#
#   1. a cached read that falls through to a schema default against one that
#      falls through to the registration domain (prefs_bench schema and
#      registered, the 1,000-key domain in place), processes alternating,
#      ROUNDS each: wall and CPU ns per read, and callgrind instructions per
#      read (a 100,001-read run minus a 1-read run, / 100,000);
#   2. a new process's start-up plus first read (startup_prefs) with and
#      without a 41-key schema (a child pane included) installed in
#      $XDG_DATA_HOME/prefs/schemas: spawn_timer, alternating, and callgrind
#      instructions; and the instructions of a first read that needs the
#      schema, installed (startup_schema) or registered by hand from the same
#      file with PrefsRegisterDefaultsFromFile (startup_regfile).
#
# Every process gets a fresh home and only PATH of this environment;
# XDG_DATA_DIRS is left unset, so the system's data directories are
# searched too, as for a real program. Knobs: PREFS_BENCH_PREFIX
# (/tmp/prefs-bench), ROUNDS (5), RUNS (15), READ_ITERS (100000),
# STARTUP_RUNS (200).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=${PREFS_BENCH_PREFIX:-/tmp/prefs-bench}
build=$here/build
ROUNDS=${ROUNDS:-5} RUNS=${RUNS:-15} READ_ITERS=${READ_ITERS:-100000} STARTUP_RUNS=${STARTUP_RUNS:-200}
command -v swiftc >/dev/null || PATH=/opt/swift/usr/bin:$PATH
command -v valgrind >/dev/null || { echo "valgrind is required (apt-get install valgrind)" >&2; exit 1; }

make -s -C "$root" install PREFIX="$prefix" LIBDIR="$prefix/lib" >/dev/null
mkdir -p "$build"
flags="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs prefs) -Wl,-rpath,$prefix/lib"
cflags="-O2 -std=c99 -Wall -Wextra -D_POSIX_C_SOURCE=200809L"
# shellcheck disable=SC2086
{
    cc $cflags -g -o "$build/prefs_bench" "$here/prefs_bench.c" $flags
    cc $cflags -o "$build/startup_prefs" "$here/startup_prefs.c" $flags
    cc $cflags -o "$build/startup_schema" "$here/startup_schema.c" $flags
    cc $cflags -o "$build/startup_regfile" "$here/startup_regfile.c" $flags
    cc -O2 -std=c99 -Wall -Wextra -D_GNU_SOURCE -o "$build/spawn_timer" "$here/spawn_timer.c" -lm
}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/prefs-schema-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
"$here/make_fixture.sh" "$scratch/fixture"
# The schema: 30 keys in the root, 10 in a child pane, and SchemaDefault1,
# its key and value as long as the registered ones (RegisteredOnly,
# "Registered value").
{
    echo '{ PreferenceSpecifiers = ('
    echo '{ Type = PSTextFieldSpecifier; Key = SchemaDefault1; DefaultValue = "Schema defaults!"; Title = "Only here"; },'
    for i in $(seq 1 30); do echo "{ Type = PSSliderSpecifier; Key = root$i; DefaultValue = $i; MinimumValue = 0; MaximumValue = 100; Title = \"Root $i\"; Description = \"A number.\"; },"; done
    echo '{ Type = PSChildPaneSpecifier; File = BenchPane; Title = More; }); }'
} >"$scratch/schema.plist"
{
    echo '{ PreferenceSpecifiers = ('
    for i in $(seq 1 10); do echo "{ Type = PSMultiValueSpecifier; Key = pane$i; DefaultValue = a; Values = (a, b, c); Titles = (A, B, C); },"; done
    echo '); }'
} >"$scratch/pane.plist"

n=0
home=
fresh() { # fresh [schema]
    n=$((n + 1))
    home=$scratch/run$n
    # .cache as in a user's home: libprefs keeps its domain indexes there.
    mkdir -p "$home/.cache" "$home/config" "$home/run" "$home/data/prefs/schemas"
    chmod 700 "$home/run"
    cp "$scratch/fixture/com.example.bench.plist" "$home/config/"
    if [ "${1:-}" = schema ]; then
        cp "$scratch/schema.plist" "$home/data/prefs/schemas/com.example.bench.plist"
        cp "$scratch/pane.plist" "$home/data/prefs/schemas/BenchPane.plist"
    fi
}
isolated() {
    env -i PATH="$PATH" LANG=C.UTF-8 HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
        XDG_RUNTIME_DIR="$home/run" PREFS_MANAGED_DIR="$home/managed" PREFS_SYSTEM_DIR="$home/system" \
        BENCH_SCHEMA="$scratch/schema-copy/com.example.bench.plist" "$@"
}
instructions() { # instructions OUT CMD...: total instructions (callgrind) of CMD
    isolated valgrind --tool=callgrind --callgrind-out-file="$1" "${@:2}" >/dev/null 2>"$1.log"
    sed -n 's/^summary: //p' "$1"
}
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "== cached reads: $ROUNDS rounds x $RUNS samples x $READ_ITERS reads, alternating" >&2
: >"$scratch/reads"
for r in $(seq 1 "$ROUNDS"); do
    fresh && isolated "$build/prefs_bench" registered "$RUNS" "$READ_ITERS" >>"$scratch/reads"
    fresh schema && isolated "$build/prefs_bench" schema "$RUNS" "$READ_ITERS" >>"$scratch/reads"
done
sample() { awk -v n="$1" '$1 == "R" && $2 == n { for (i = 6; i <= NF; i++) print $i }' "$scratch/reads" | median; }
# Each measured home first gets the domain's index, as any write by
# libprefs leaves it (a first reader that parses makes it too).
warm() { isolated "$build/startup_prefs" >/dev/null; }
fresh && warm
reg1=$(instructions "$scratch/cg.r1" "$build/prefs_bench" registered 1 1)
regN=$(instructions "$scratch/cg.rN" "$build/prefs_bench" registered 1 100001)
fresh schema && warm
sch1=$(instructions "$scratch/cg.s1" "$build/prefs_bench" schema 1 1)
schN=$(instructions "$scratch/cg.sN" "$build/prefs_bench" schema 1 100001)

echo "== start-up + first read: $STARTUP_RUNS processes each, alternating in 4 blocks" >&2
: >"$scratch/startup"
for b in 1 2 3 4; do
    fresh && isolated "$build/spawn_timer" $((STARTUP_RUNS / 4)) 5 "$scratch/s$b-none.csv" "$build/startup_prefs"
    fresh schema && isolated "$build/spawn_timer" $((STARTUP_RUNS / 4)) 5 "$scratch/s$b-schema.csv" "$build/startup_prefs"
done
col() { cat "$scratch"/s*-"$1".csv | awk -F, -v c="$2" 'NR > 0 && $1 !~ /command/ { print $c * 1000 }' | median; }
fresh && warm
st_none=$(instructions "$scratch/cg.st0" "$build/startup_prefs")
fresh schema && warm
st_schema=$(instructions "$scratch/cg.st1" "$build/startup_prefs")
st_schema_read=$(instructions "$scratch/cg.st2" "$build/startup_schema")
fresh && warm
mkdir -p "$scratch/schema-copy"
cp "$scratch/schema.plist" "$scratch/schema-copy/com.example.bench.plist"
cp "$scratch/pane.plist" "$scratch/schema-copy/BenchPane.plist"
st_regfile=$(instructions "$scratch/cg.st3" "$build/startup_regfile")

echo
echo "Cached read (PrefsCopyAppValue + PrefsRelease), medians of $((ROUNDS * RUNS)) samples:"
echo
echo "| falls through to | wall ns/read | CPU ns/read | instructions/read |"
echo "|---|---|---|---|"
printf '| registration domain | %s | %s | %.0f |\n' "$(sample registered)" "$(sample registered-cpu)" "$(echo "($regN - $reg1) / 100000" | bc -l)"
printf '| installed schema | %s | %s | %.0f |\n' "$(sample schema)" "$(sample schema-cpu)" "$(echo "($schN - $sch1) / 100000" | bc -l)"
echo
echo "Start-up plus first read of the 1,000-key domain (startup_prefs), medians of $STARTUP_RUNS processes:"
echo
echo "| | median wall ms | instructions |"
echo "|---|---|---|"
printf '| no schema installed | %.2f | %s |\n' "$(col none 4)" "$st_none"
printf '| 41-key schema with a child pane installed | %.2f | %s |\n' "$(col schema 4)" "$st_schema"
echo
echo "A first read that needs the schema (a key only it has), instructions:"
echo
echo "| | instructions |"
echo "|---|---|"
printf '| installed schema, no call (startup_schema) | %s |\n' "$st_schema_read"
printf '| PrefsRegisterDefaultsFromFile of the same file, then the read (startup_regfile) | %s |\n' "$st_regfile"
