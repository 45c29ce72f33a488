#!/usr/bin/env bash
# Benchmarks/commit/run.sh [KEYS...]: instructions (callgrind) of one
# process that sets one existing key of an N-key domain and synchronizes
# (set_sync.c), for each N (default 1000 100000). The domain's values cycle
# through string, integer, boolean and real; it is written once by libprefs
# first, so that its index exists, as after any libprefs write. Knobs:
# PREFS_LIB, the directory of the libprefs.so to measure (default: this
# checkout's release build); NEW, new keys the measured process adds
# besides its one set (default 0; 50 is one writer's round of
# Benchmarks/processes); FORMAT, xml (default) or binary: the domain file
# is made binary (by Python's plistlib) before libprefs writes it, and
# libprefs keeps it binary.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then PATH=/opt/swift/usr/bin:$PATH; fi
lib=${PREFS_LIB:-$(make -s -C "$root" print-build-dir)}
work=$(mktemp -d "${TMPDIR:-/tmp}/prefs-commit.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The build names the library libprefs.so; programs load it by its soname.
mkdir -p "$work/lib"
ln -s "$lib/libprefs.so" "$work/lib/libprefs.so"
ln -s "$lib/libprefs.so" "$work/lib/libprefs.so.1"
cc -O2 -I"$root/include" "$here/set_sync.c" -L"$work/lib" -lprefs -Wl,-rpath,"$work/lib" -o "$work/set_sync"
mkdir -p "$work/home/.cache" "$work/config" "$work/run"
chmod 700 "$work/run"
export HOME=$work/home XDG_CONFIG_HOME=$work/config XDG_RUNTIME_DIR=$work/run LANG=C.UTF-8
unset XDG_CACHE_HOME
for n in "${@:-1000 100000}"; do
    for n1 in $n; do
        awk -v n="$n1" 'BEGIN {
            print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
            print "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">"
            print "<plist version=\"1.0\">\n<dict>"
            for (i = 0; i < n; i++) {
                k = sprintf("key%07d", i)
                if (i % 4 == 0) x = "<string>value " i "</string>"
                else if (i % 4 == 1) x = "<integer>" i * 7 "</integer>"
                else if (i % 4 == 2) x = (i % 8 == 2) ? "<true/>" : "<false/>"
                else x = "<real>" i ".5</real>"
                print "\t<key>" k "</key>\n\t" x
            }
            print "</dict>\n</plist>"
        }' >"$work/config/com.example.commit.plist"
        if [ "${FORMAT:-xml}" = binary ]; then
            python3 -c 'import plistlib, sys
p = sys.argv[1]
v = plistlib.load(open(p, "rb"))
plistlib.dump(v, open(p, "wb"), fmt=plistlib.FMT_BINARY)' "$work/config/com.example.commit.plist"
        fi
        rm -rf "$HOME/.cache/prefs"
        "$work/set_sync" key0000500 1 # parses, writes the file and its index
        "$work/set_sync" key0000500 2 # a binary file: its first splice
        count=$(valgrind --tool=callgrind --callgrind-out-file="$work/cg.$n1" "$work/set_sync" key0000500 3 "${NEW:-0}" 2>&1 |
            sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' | tail -1)
        callgrind_annotate --inclusive=yes "$work/cg.$n1" >"$work/annotate.$n1" 2>/dev/null
        sync=$(awk '/PrefsAppSynchronize/ { gsub(",", "", $1); print $1; exit }' "$work/annotate.$n1")
        printf '%s keys, %s new, %s: %s instructions, whole process; %s in PrefsAppSynchronize\n' "$n1" "${NEW:-0}" "${FORMAT:-xml}" "$count" "$sync"
        [ -n "${KEEP:-}" ] && cp "$work/cg.$n1" "$KEEP.$n1" || true
    done
done
