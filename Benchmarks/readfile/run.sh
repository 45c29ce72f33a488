#!/usr/bin/env bash
# Benchmarks/readfile/run.sh [PREFIX]: instructions (valgrind --tool=callgrind)
# of `prefs read D key3` and `prefs read D`, whole processes, on a
# 100,000-key domain (6.5 MB of XML) that Python's plistlib wrote, so that
# there is no index and the file is read and parsed whole; and how many of
# them are memset's (a buffer zero-filled before a read overwrites it
# shows there). PREFIX: an installed prefix (`make stage` makes
# build/stage); default: `make install` of this checkout into a temporary
# prefix. Instructions do not move with the machine's load.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
for t in valgrind callgrind_annotate python3; do command -v $t >/dev/null || { echo "$0: $t missing" >&2; exit 1; }; done
work=$(mktemp -d "${TMPDIR:-/tmp}/prefs-readfile.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ $# -ge 1 ]; then
    prefix=$(cd "$1" && pwd)
else
    if ! command -v swiftc >/dev/null && [ -x /opt/swift/usr/bin/swiftc ]; then PATH=/opt/swift/usr/bin:$PATH; fi
    prefix=$work/stage
    make -C "$root" install PREFIX="$prefix" LIBDIR="$prefix/lib" >"$work/install.log" 2>&1 || { tail -20 "$work/install.log" >&2; exit 1; }
fi
prefs=$prefix/bin/prefs
# The prefix's own library, even for a copied prefix whose RUNPATH names
# where it was installed.
export LD_LIBRARY_PATH=$prefix/lib
D=com.example.readfile
mkdir -p "$work/home" "$work/config" "$work/run"
chmod 700 "$work/run"
export HOME=$work/home XDG_CONFIG_HOME=$work/config XDG_RUNTIME_DIR=$work/run LANG=C.UTF-8
unset XDG_CACHE_HOME
python3 "$root/Benchmarks/firstread/foreign_domain.py" 100000 "$work/config/$D.plist"
[ "$("$prefs" read $D key3)" = "string 3" ] || { echo "$0: prefs read failed" >&2; exit 1; }
echo "domain file: $(stat -c %s "$work/config/$D.plist") bytes, 100,000 keys, no index"
for args in "read $D key3" "read $D"; do
    valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$prefs" $args >/dev/null 2>"$work/log"
    total=$(grep -o 'Collected : [0-9]*' "$work/log" | grep -o '[0-9]*$')
    memset=$(callgrind_annotate --threshold=100 "$work/cg" 2>/dev/null | grep -E 'memset' | awk '{gsub(",", "", $1); s += $1} END {print s + 0}')
    printf 'prefs %-28s %15s instructions, of which memset %s\n' "${args/$D/D}" "$total" "$memset"
done
[ -z "$(ls -A "$HOME")" ] || echo "$0: the reader wrote into HOME" >&2
