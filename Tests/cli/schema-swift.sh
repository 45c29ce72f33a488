#!/usr/bin/env bash
#
# schema-swift.sh <prefix> <swift-build-dir> — the Swift that
# `prefs schema swift` writes from examples/schema type-checks against the
# PrefsCore module of <swift-build-dir>, and its keys have the types and
# defaults the schema gives (a program using them as Int, Bool, String and
# Double type-checks; one using FontSize as a String does not), compiled
# with PrefsCore and run against stored values that break the schema: the
# keys read the defaults (with or without the schema installed) and refuse
# to store such values. The schema with every specifier type
# (Tests/schemas) gives keys of its types exactly: dates, data, NaN and
# the infinities stay what they are.
#
# One line per check, then "N passed, N failed"; exit status 0 or 1.

set -u
PREFIX=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/prefs-schema-swift.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
. "$ROOT/Tests/lib.sh"

typecheck() {
    # shellcheck disable=SC2046
    swiftc -typecheck -I "$BUILD/Modules" -Xcc -fmodule-map-file="$ROOT/Sources/CProcessHooks/include/module.modulemap" \
        -I "$ROOT/Sources/CSystemShims" -I "$ROOT/Sources/CLibXML2" $(pkg-config --cflags libxml-2.0 | sed 's/-I/-Xcc -I/g') \
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

# Compiled with PrefsCore's objects and run against out-of-range values.
cat >"$WORK/main.swift" <<'SWIFT'
import PrefsCore

let p = try! Preferences(applicationID: "com.example.notes")
print(p[.fontSize], p[.spellCheck], p[.theme], p[.lineSpacing], p[.defaultFolder])
do {
    try p.set(1000, for: .fontSize)
    print("stored 1000")
} catch {
    print("refused:", error.code == .schemaViolation)
}
try! p.set(40, for: .fontSize)
print(p[.fontSize])
SWIFT
# shellcheck disable=SC2046
if swiftc -O -I "$BUILD/Modules" -Xcc -fmodule-map-file="$ROOT/Sources/CProcessHooks/include/module.modulemap" \
    -I "$ROOT/Sources/CSystemShims" -I "$ROOT/Sources/CLibXML2" $(pkg-config --cflags libxml-2.0 | sed 's/-I/-Xcc -I/g') \
    -o "$WORK/notes-keys" "$WORK/NotesKeys.swift" "$WORK/main.swift" \
    "$BUILD"/PrefsCore.build/*.o "$BUILD"/CProcessHooks.build/*.o "$BUILD"/CLibXML2.build/*.o >"$WORK/swiftc.log" 2>&1; then
    pass "schema swift/compiles and links with PrefsCore"
    export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/config XDG_DATA_HOME=$WORK/data XDG_DATA_DIRS=$WORK/none
    export PREFS_SYSTEM_DIR=$WORK/system PREFS_MANAGED_DIR=$WORK/managed
    mkdir -p "$HOME" "$XDG_CONFIG_HOME"
    bad='<plist version="1.0"><dict><key>DefaultFolder</key><integer>3</integer><key>FontSize</key><integer>1000</integer><key>LineSpacing</key><real>nan</real><key>SpellCheck</key><integer>1</integer><key>Theme</key><string>sepia</string></dict></plist>'
    printf '%s' "$bad" >"$XDG_CONFIG_HOME/com.example.notes.plist"
    out=$("$WORK/notes-keys" 2>&1)
    want=$'13 true light 1.2 Notes\nrefused: true\n40'
    if [ "$out" = "$want" ]; then pass "schema swift/no schema installed: out-of-range values read as defaults, refused"; else fail "schema swift/no schema installed: out-of-range values read as defaults, refused" "$out"; fi
    printf '%s' "$bad" >"$XDG_CONFIG_HOME/com.example.notes.plist"
    mkdir -p "$XDG_DATA_HOME/prefs/schemas"
    cp "$ROOT"/examples/schema/*.plist "$XDG_DATA_HOME/prefs/schemas/"
    out=$("$WORK/notes-keys" 2>&1)
    if [ "$out" = "$want" ]; then pass "schema swift/schema installed: the same answers"; else fail "schema swift/schema installed: the same answers" "$out"; fi
else
    fail "schema swift/compiles and links with PrefsCore" "$(head -c 600 "$WORK/swiftc.log")"
fi

# Every specifier type: the keys carry the schema's types exactly.
if "$PREFIX/bin/prefs" schema swift "$ROOT/Tests/schemas/com.example.every.plist" >"$WORK/EveryKeys.swift"; then
    cat >"$WORK/every.swift" <<'SWIFT'
import PrefsCore

let types: (Bool, String, Int, Double, String, Int, String, String, PropertyList, PropertyList, Int) = (
    Preferences.Keys.toggle.defaultValue, Preferences.Keys.yesNo.defaultValue, Preferences.Keys.size.defaultValue,
    Preferences.Keys.spacing.defaultValue, Preferences.Keys.theme.defaultValue, Preferences.Keys.level.defaultValue,
    Preferences.Keys.name.defaultValue, Preferences.Keys.version.defaultValue, Preferences.Keys.since.defaultValue,
    Preferences.Keys.token.defaultValue, Preferences.Keys.broken.defaultValue
)
SWIFT
    if typecheck "$WORK/EveryKeys.swift" "$WORK/every.swift"; then pass "schema swift/every specifier type, typed exactly"; else fail "schema swift/every specifier type, typed exactly" "$(head -c 600 "$WORK/swiftc.log")"; fi
    if grep -q 'default: PropertyList.date(978307200.0), accepts: { $0.kind == .date }' "$WORK/EveryKeys.swift" \
        && grep -q 'default: PropertyList.data(\[0, 255\] as \[UInt8\])' "$WORK/EveryKeys.swift"; then
        pass "schema swift/a date stays a date, data stays data"
    else
        fail "schema swift/a date stays a date, data stays data" "$(grep -E 'since|token' "$WORK/EveryKeys.swift")"
    fi
else
    fail "schema swift/every specifier type" "status $?"
fi
# NaN and the infinities stay reals; a large integer stays an integer.
cat >"$WORK/reals.plist" <<'PLIST'
<plist version="1.0"><dict><key>PreferenceSpecifiers</key><array>
<dict><key>Type</key><string>PSSliderSpecifier</string><key>Key</key><string>N</string><key>DefaultValue</key><real>nan</real></dict>
<dict><key>Type</key><string>PSSliderSpecifier</string><key>Key</key><string>I</string><key>DefaultValue</key><real>+infinity</real></dict>
<dict><key>Type</key><string>PSSliderSpecifier</string><key>Key</key><string>M</string><key>DefaultValue</key><real>-infinity</real></dict>
<dict><key>Type</key><string>PSTextFieldSpecifier</string><key>Key</key><string>U</string><key>DefaultValue</key><integer>18446744073709551615</integer></dict>
</array></dict></plist>
PLIST
"$PREFIX/bin/prefs" schema swift "$WORK/reals.plist" >"$WORK/RealKeys.swift"
printf 'import PrefsCore\nlet r: (Double, Double, Double, PropertyList) = (Preferences.Keys.n.defaultValue, Preferences.Keys.i.defaultValue, Preferences.Keys.m.defaultValue, Preferences.Keys.u.defaultValue)\n' >"$WORK/reals.swift"
if typecheck "$WORK/RealKeys.swift" "$WORK/reals.swift" && grep -q 'default: Double.nan' "$WORK/RealKeys.swift" \
    && grep -q 'default: Double.infinity' "$WORK/RealKeys.swift" && grep -q 'default: -Double.infinity' "$WORK/RealKeys.swift"; then
    pass "schema swift/NaN and the infinities are Doubles, not strings"
else
    fail "schema swift/NaN and the infinities are Doubles, not strings" "$(cat "$WORK/RealKeys.swift" "$WORK/swiftc.log" | head -c 800)"
fi

# Hostile texts in a title, a description, a key and a default: comment
# openers and closers, a trigraph, a backslash at the end of a line, a
# newline, a bidirectional override. The keys type-check, the string
# literals hold the texts exactly (escaped), the comments stay on one line
# with no comment marker.
hostile_schema "$WORK/hostile.plist"
literal='"x /* y */ z ??/ w\\\u{a}v \u{202e} rtl ??="'
"$PREFIX/bin/prefs" schema swift "$WORK/hostile.plist" >"$WORK/HostileKeys.swift"
printf 'import PrefsCore\nlet h: String = Preferences.Keys.hostile.defaultValue\nlet same = h == %s\n' "$literal" >"$WORK/hostile.swift"
if typecheck "$WORK/HostileKeys.swift" "$WORK/hostile.swift" \
    && [ "$(grep -cF "Preferences.Key<String>($literal, default: $literal" "$WORK/HostileKeys.swift")" = 1 ] \
    && [ "$(grep -cF "default: $literal" "$WORK/HostileKeys.swift")" = 2 ] \
    && ! grep '^ *//' "$WORK/HostileKeys.swift" | grep -qE '/\*|\*/|\?\?' \
    && [ "$(grep -c '^    /// x / \* y \* / z ? ?/ w\\ v   rtl ? ?=' "$WORK/HostileKeys.swift")" = 2 ]; then
    pass "schema swift/comment markers, trigraphs, backslashes, newlines in texts"
else
    fail "schema swift/comment markers, trigraphs, backslashes, newlines in texts" "$(cat "$WORK/HostileKeys.swift" "$WORK/swiftc.log" | head -c 1200)"
fi

summary
