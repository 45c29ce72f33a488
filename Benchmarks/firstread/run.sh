#!/usr/bin/env bash
# Benchmarks/firstread/run.sh: instructions of one `prefs read D key3`, a
# whole process, on a 1,000-key domain that Python's plistlib wrote (a
# third strings, a third integers, a third two-element arrays), side by
# side with Foundation's UserDefaults and dconf reading the same key:
#
#   foreign      prefs read, the domain as plistlib wrote it (no index)
#   indexed      prefs read after a libprefs write of the same value made
#                the domain's index
#   Foundation   UserDefaults(suiteName: D).object(forKey:), swiftc -O
#   dconf        dconf read /D/key3 of the same 1,000 keys (when installed)
#
# and, for the foreign read, the parts callgrind attributes: libxml2's
# loading (dlopen), its parse (xmlParseDocument for UTF-8, xmlParseChunk
# otherwise, with the handlers it calls)
# and index encoding (DomainIndex.save, which a reader no longer calls).
# Instructions (valgrind --tool=callgrind) do not move with the machine's
# load. Knobs: PREFS_PREFIX, an installed prefix to measure (default:
# `make install` of this checkout into a temporary prefix).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
if ! command -v swiftc >/dev/null && [ -x /opt/swift/usr/bin/swiftc ]; then PATH=/opt/swift/usr/bin:$PATH; fi
for t in valgrind callgrind_annotate python3; do command -v $t >/dev/null || { echo "$0: $t missing" >&2; exit 1; }; done
work=$(mktemp -d "${TMPDIR:-/tmp}/prefs-firstread.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -n "${PREFS_PREFIX:-}" ]; then
    prefix=$(cd "$PREFS_PREFIX" && pwd)
else
    prefix=$work/stage
    make -C "$root" install PREFIX="$prefix" LIBDIR="$prefix/lib" >"$work/install.log" 2>&1 || { tail -20 "$work/install.log" >&2; exit 1; }
fi
prefs=$prefix/bin/prefs
D=com.example.clibench
mkdir -p "$work/home/.cache" "$work/config" "$work/run" "$work/bin"
chmod 700 "$work/run"
export HOME=$work/home XDG_CONFIG_HOME=$work/config XDG_RUNTIME_DIR=$work/run LANG=C.UTF-8
unset XDG_CACHE_HOME
python3 "$here/foreign_domain.py" 1000 "$work/config/$D.plist"
cp "$work/config/$D.plist" "$work/foreign.plist"
[ "$("$prefs" read $D key3)" = "string 3" ] || { echo "$0: prefs read failed" >&2; exit 1; }
[ -z "$(ls -A "$HOME/.cache")" ] || { echo "$0: a reader wrote into the cache" >&2; exit 1; }

count() { grep -o 'Collected : [0-9]*' "$1" | grep -o '[0-9]*$'; }
part() { callgrind_annotate --inclusive=yes "$1" 2>/dev/null | grep -m1 -E "$2" | awk '{gsub(",", "", $1); print $1}'; }
valgrind --tool=callgrind --callgrind-out-file="$work/foreign.cg" "$prefs" read $D key3 >/dev/null 2>"$work/foreign.log"
"$prefs" write $D key3 "string 3"
ls "$HOME"/.cache/prefs/$D.plist.*.index >/dev/null
valgrind --tool=callgrind --callgrind-out-file=/dev/null "$prefs" read $D key3 >/dev/null 2>"$work/indexed.log"

cat >"$work/bin/f.swift" <<'SW'
import Foundation
guard let d = UserDefaults(suiteName: CommandLine.arguments[1]), let v = d.object(forKey: CommandLine.arguments[2]) else { exit(1) }
print(v)
SW
foundation=
if swiftc -O "$work/bin/f.swift" -o "$work/bin/f" 2>"$work/swiftc.log"; then
    cp "$work/foreign.plist" "$work/config/$D-f.plist"
    "$work/bin/f" $D-f key3 >/dev/null
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/bin/f" $D-f key3 >/dev/null 2>"$work/foundation.log"
    foundation=$(count "$work/foundation.log")
fi
dconf=
if command -v dconf >/dev/null && command -v dbus-run-session >/dev/null; then
    python3 - >"$work/fixture.ini" <<'PY'
print("[/]")
for i in range(1, 1001):
    print(f"key{i}=" + (f"'string {i}'" if i % 3 == 0 else (str(i * 1000) if i % 3 == 1 else f"('a{i}', {i})")))
PY
    dconf=$(dbus-run-session -- bash -c "dconf load /com/example/clibench/ <'$work/fixture.ini' && dconf read /com/example/clibench/key3 >/dev/null &&
        valgrind --tool=callgrind --callgrind-out-file=/dev/null dconf read /com/example/clibench/key3 2>&1 >/dev/null | grep -o 'Collected : [0-9]*' | grep -o '[0-9]*$'" 2>/dev/null) || dconf=
fi

f=$(count "$work/foreign.log")
m() { if [ -z "${1:-}" ]; then echo "not called"; else awk -v n="$1" 'BEGIN { printf "%.2f M", n / 1e6 }'; fi; }
echo "Command: \`Benchmarks/firstread/run.sh\` at $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" status --porcelain --untracked-files=no | grep -q . && echo ' plus uncommitted changes')"
echo
echo "| \`prefs read $D key3\`, 1,000 keys, $(wc -c <"$work/foreign.plist") bytes | instructions |"
echo "|---|---|"
echo "| whole process, domain as plistlib wrote it (no index) | $(m "$f") |"
echo "| of which loading libxml2 (\`dlopen\`) | $(m "$(part "$work/foreign.cg" ':dlopen@@')") |"
echo "| of which libxml2's parse (\`xmlParseDocument\`, its handlers included) | $(m "$(part "$work/foreign.cg" ':xmlParse(Document|Chunk) ')") |"
echo "| of which encoding an index (\`DomainIndex.save\`) | $(m "$(part "$work/foreign.cg" 'DomainIndexV4save')") |"
echo "| whole process, after a libprefs write (index present) | $(m "$(count "$work/indexed.log")") |"
echo "| Foundation \`UserDefaults\` reading the same key | $(m "$foundation") |"
echo "| \`dconf read\` of the same key, 1,000 keys | $(m "$dconf") |"
[ -n "$foundation" ] && awk -v a="$foundation" -v b="$f" 'BEGIN { printf "\nFoundation / libprefs without an index: %.2fx\n", a / b }'
