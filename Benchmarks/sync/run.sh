#!/bin/sh
# Synced preferences: the cost of a read of a synced key against a local
# one, the system calls they make, and the time from a write on one machine
# to another machine's observer over two real Syncthing instances on
# loopback (Tests/sync/run.py --bench).
#
#   Benchmarks/sync/run.sh <prefix> [writes]   after make install PREFIX=<prefix>
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=$(cd "${1:?usage: run.sh <prefix> [writes]}" && pwd)
writes=${2:-20}
work=$(mktemp -d /tmp/prefs-sync-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
libdir=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --variable=libdir prefs)
cc -std=c99 -O2 -Wall -Wextra -Werror "$here/read_bench.c" \
    $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs prefs) -Wl,-rpath,"$libdir" -o "$work/read_bench"
# fresh NAME: private directories of their own for one run.
fresh() {
    d=$work/$1
    mkdir -p "$d/config" "$d/runtime" "$d/sync"
    chmod 700 "$d/runtime"
    export XDG_CONFIG_HOME=$d/config XDG_RUNTIME_DIR=$d/runtime PREFS_SYNC_DIR=$d/sync \
        XDG_CACHE_HOME=$d/cache XDG_DATA_HOME=$d/data PREFS_SYSTEM_DIR=$d/system PREFS_MANAGED_DIR=$d/managed
}
echo "### Reads (best of 5 runs of 1,000,000 reads, ns per PrefsCopyAppValue + PrefsRelease)"
fresh timed
"$work/read_bench" 1000000
if command -v strace >/dev/null 2>&1; then
    fresh one
    strace -f -c -o "$work/one.txt" "$work/read_bench" 1
    fresh many
    strace -f -c -o "$work/many.txt" "$work/read_bench" 200000 >/dev/null
    echo "system calls: $(awk '/total/ { print $4 }' "$work/one.txt") for the set-up and 1 read of each key," \
        "$(awk '/total/ { print $4 }' "$work/many.txt") for the same set-up and 5 x 2 x 200,000 reads (strace -f -c)"
fi
[ "${SKIP_SYNCTHING:-0}" = 1 ] && exit 0
echo "### Write on one machine to the other machine's observer, over Syncthing"
python3 "$root/Tests/sync/run.py" "$prefix" --bench "$writes" | grep -E '^bench:|passed'
