#!/usr/bin/env bash
# Benchmarks/store/format.sh: a domain file kept in its format
# (BENCHMARKS.md, "First synchronize of a binary domain").
#
# The 1,000-key domain of "Preferences store" (make_fixture.sh), as XML and
# as a binary file (`prefs convert -convert binary1`, what a Mac writes). A
# new process loads it, sets one key and synchronizes (prefs_bench first1):
# the synchronize is timed, wall and CPU, one sample per process, ROUNDS
# processes per case, the cases alternating. The cases:
#
#   binary  the binary file, written back binary (this checkout)
#   xml     the XML file, written back as XML (this checkout)
#   binary-as-xml
#           the binary file rewritten as XML, as libprefs did before a domain
#           kept its format: run only when BASE_PREFIX names an install of
#           such a libprefs (make install PREFIX=... of an earlier commit)
#
# and, once each, callgrind's instruction count of the whole process.
# Every process gets a fresh home and only PATH of this environment.
# Knobs: PREFS_BENCH_PREFIX (/tmp/prefs-bench), BASE_PREFIX (unset),
# ROUNDS (40).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=${PREFS_BENCH_PREFIX:-/tmp/prefs-bench}
base=${BASE_PREFIX:-}
build=$here/build
ROUNDS=${ROUNDS:-40}
command -v swiftc >/dev/null || PATH=/opt/swift/usr/bin:$PATH

make -s -C "$root" install PREFIX="$prefix" LIBDIR="$prefix/lib" >/dev/null
mkdir -p "$build"
cflags="-O2 -std=c99 -Wall -Wextra -D_POSIX_C_SOURCE=200809L"
flags() { echo "$(PKG_CONFIG_PATH="$1/lib/pkgconfig" pkg-config --cflags --libs prefs) -Wl,-rpath,$1/lib"; }
# shellcheck disable=SC2046
cc $cflags -o "$build/prefs_bench" "$here/prefs_bench.c" $(flags "$prefix")
if [ -n "$base" ]; then
    # shellcheck disable=SC2046
    cc $cflags -o "$build/prefs_bench_base" "$here/prefs_bench.c" $(flags "$base")
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/prefs-format-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
"$here/make_fixture.sh" "$scratch/fixture"
xml=$scratch/fixture/com.example.bench.plist
binary=$scratch/fixture/binary.plist
"$prefix/bin/prefs" convert -convert binary1 -o "$binary" "$xml"
[ "$(head -c 8 "$binary")" = bplist00 ] || { echo "the binary fixture is not binary" >&2; exit 1; }
echo "fixture: XML $(wc -c <"$xml") bytes, binary $(wc -c <"$binary") bytes" >&2

# run CASE PROGRAM FILE [TOOL...]: one process on a fresh home holding FILE
# as the domain; prints its R lines, checks the format written.
run() {
    local case=$1 program=$2 file=$3
    shift 3
    local home
    home=$(mktemp -d "$scratch/home.XXXXXX")
    mkdir -p "$home/.cache" "$home/config" "$home/run" "$home/managed" "$home/system"
    chmod 700 "$home/run"
    cp "$file" "$home/config/com.example.bench.plist"
    env -i PATH="$PATH" LANG=C.UTF-8 HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_RUNTIME_DIR="$home/run" \
        PREFS_MANAGED_DIR="$home/managed" PREFS_SYSTEM_DIR="$home/system" \
        "$@" "$build/$program" first1 | sed "s/^R \([^ ]*\) libprefs/R \1 $case/"
    local written
    written=$(head -c 5 "$home/config/com.example.bench.plist")
    case $case in
        binary) [ "$written" = bplis ] || { echo "binary case wrote $written" >&2; exit 1; } ;;
        *) [ "$written" = "<?xml" ] || { echo "$case case wrote $written" >&2; exit 1; } ;;
    esac
    rm -rf "$home"
}

raw=$scratch/raw.txt
for ((r = 0; r < ROUNDS; r++)); do
    run binary prefs_bench "$binary" >>"$raw"
    run xml prefs_bench "$xml" >>"$raw"
    if [ -n "$base" ]; then run binary-as-xml prefs_bench_base "$binary" >>"$raw"; fi
done

# Median and quartiles of each case's samples.
echo "| case | first synchronize, median wall ms [q1-q3] | median CPU ms [q1-q3] |"
echo "|---|---|---|"
cases="binary xml"
[ -n "$base" ] && cases="$cases binary-as-xml"
for c in $cases; do
    stats() {
        awk -v k="$1" '$1 == "R" && $2 == k && $3 == c { print $6 }' c="$c" "$raw" | sort -g | awk '
            { v[NR] = $1 } END { printf "%.3f [%.3f-%.3f]", v[int((NR + 1) / 2)], v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)] }'
    }
    echo "| $c | $(stats first1) | $(stats first1-cpu) |"
done

if command -v valgrind >/dev/null; then
    echo
    echo "| case | instructions of the whole process (callgrind) |"
    echo "|---|---|"
    for c in $cases; do
        program=prefs_bench file=$binary
        [ "$c" = xml ] && file=$xml
        [ "$c" = binary-as-xml ] && program=prefs_bench_base
        out=$scratch/cg.$c
        run "$c" "$program" "$file" valgrind --tool=callgrind --callgrind-out-file="$out" >/dev/null 2>&1
        echo "| $c | $(awk '/^summary:/ { print $2 }' "$out") |"
    done
fi
