#!/usr/bin/env bash
#
# schema-swift.sh <prefix> <swift-build-dir> — the Swift that
# `prefs schema swift` writes from examples/schema type-checks against the
# PrefsCore module of <swift-build-dir>, and its keys have the types and
# defaults the schema gives (a program using them as Int, Bool, String and
# Double type-checks; one using FontSize as a String does not).
#
# One line per check, then "N passed, N failed"; exit status 0 or 1.

set -u
PREFIX=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/prefs-schema-swift.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0
pass() { passed=$((passed + 1)); printf 'PASS  %s\n' "$1"; }
fail() { failed=$((failed + 1)); printf 'FAIL  %s  (%s)\n' "$1" "$2"; }

typecheck() {
    # shellcheck disable=SC2046
    swiftc -typecheck -I "$BUILD/Modules" -Xcc -fmodule-map-file="$ROOT/Sources/CProcessHooks/include/module.modulemap" \
        -I "$ROOT/Sources/CAtomics" -I "$ROOT/Sources/CLibXML2" $(pkg-config --cflags libxml-2.0 | sed 's/-I/-Xcc -I/g') \
        "$@" >"$WORK/swiftc.log" 2>&1
}

if "$PREFIX/bin/prefs" schema swift "$ROOT/examples/schema/com.example.notes.plist" >"$WORK/NotesKeys.swift"; then
    pass "schema swift/generates"
else
    fail "schema swift/generates" "status $?"
fi
cat >"$WORK/use.swift" <<'SWIFT'
import PrefsCore

func read(_ p: Preferences) -> (Int, Bool, String, Double, String) {
    (p[.fontSize], p[.spellCheck], p[.theme], p[.lineSpacing], p[.defaultFolder])
}
let defaults: (Int, Bool, Double) = (
    Preferences.Keys.fontSize.defaultValue, Preferences.Keys.spellCheck.defaultValue,
    Preferences.Keys.lineSpacing.defaultValue
)
SWIFT
if typecheck "$WORK/NotesKeys.swift" "$WORK/use.swift"; then
    pass "schema swift/type-checks against PrefsCore, keys typed as the schema says"
else
    fail "schema swift/type-checks against PrefsCore, keys typed as the schema says" "$(head -c 600 "$WORK/swiftc.log")"
fi
printf 'import PrefsCore\nlet wrong: String = Preferences.Keys.fontSize.defaultValue\n' >"$WORK/wrong.swift"
if ! typecheck "$WORK/NotesKeys.swift" "$WORK/wrong.swift" && grep -q "cannot convert" "$WORK/swiftc.log"; then
    pass "schema swift/a key used as the wrong type is refused"
else
    fail "schema swift/a key used as the wrong type is refused" "$(head -c 600 "$WORK/swiftc.log")"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
