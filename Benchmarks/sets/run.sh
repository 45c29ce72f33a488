#!/bin/sh
# The instructions one set of an existing key costs, in memory (no
# synchronize), through the C API (Benchmarks/store/set_cost.c) and the
# Swift API (set-bench), for an integer, a string and a dictionary.
#
#   Benchmarks/sets/run.sh          [PREFS_PREFIX=/tmp/prefs-sets] [SETS=10000]
#
# Each figure is callgrind's count inside the set calls only
# (--toggle-collect: PrefsSetAppValue, and Preferences.trySet(_:forKey:)
# of a PropertyListConvertible), divided by the number of sets, in a fresh process
# and home holding the 1,000-key domain of make_fixture.sh. Start-up,
# loading the domain and the background writer's thread (which writes the
# domain once a second while the sets run under valgrind) are left out.
# The counts do not depend on the machine's load. Needs valgrind.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=${PREFS_PREFIX:-/tmp/prefs-sets}
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    PATH=/opt/swift/usr/bin:$PATH
fi
command -v valgrind >/dev/null || { echo "valgrind is required (apt-get install valgrind)" >&2; exit 1; }

make -s -C "$root" install PREFIX="$prefix" LIBDIR="$prefix/lib" >/dev/null
scratch=$(mktemp -d /tmp/prefs-sets.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# shellcheck disable=SC2046
cc -O2 -std=c99 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -o "$scratch/set_cost" "$root/Benchmarks/store/set_cost.c" \
    $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs prefs) -Wl,-rpath,"$prefix/lib"
swift build -c release --package-path "$here" --scratch-path "$root/.build/set-bench" >&2
swift_bench=$root/.build/set-bench/release/set-bench
"$root/Benchmarks/store/make_fixture.sh" "$scratch/fixture"

sets=${SETS:-10000}
runs=0
# per_set FUNCTION PROGRAM ARGS...: callgrind's instructions inside
# FUNCTION for $sets sets, divided by $sets, in a fresh home holding the
# fixture.
per_set() {
    fn=$1
    shift
    runs=$((runs + 1))
    home=$scratch/run$runs
    mkdir -p "$home/.cache" "$home/config" "$home/run" "$home/managed" "$home/system"
    chmod 700 "$home/run"
    cp "$scratch/fixture/com.example.bench.plist" "$home/config/"
    n=$(env -i PATH="$PATH" LANG=C.UTF-8 HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_RUNTIME_DIR="$home/run" \
        PREFS_MANAGED_DIR="$home/managed" PREFS_SYSTEM_DIR="$home/system" \
        valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect="$fn" "$@" "$sets" 2>&1 >/dev/null |
        sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' | tail -1)
    echo $((n / sets))
}
echo "| instructions per set of an existing key | integer | string | dictionary |"
echo "|---|---|---|---|"
printf '| C, `PrefsSetAppValue` |'
for kind in integer string dictionary; do printf ' %s |' "$(per_set PrefsSetAppValue "$scratch/set_cost" $kind)"; done
echo
printf '| Swift, `Preferences.trySet(_:forKey:)` |'
for kind in integer string dictionary; do printf ' %s |' "$(per_set '*PreferencesV6trySet_6forKey*' "$swift_bench" $kind)"; done
echo
echo
echo "(callgrind --toggle-collect, $sets sets each; at $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "an export"))"
