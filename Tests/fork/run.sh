#!/usr/bin/env bash
#
# run.sh <swift-build-dir> — a Swift program built with PrefsCore forks
# while another of its threads declares typed keys without pause (synced
# keys and defaults, whose locks it then often holds); each child sets and
# reads a declared key and exits. A child that finds a lock held by a
# thread it does not have hangs or crashes: the fork handlers must hold
# those locks across the fork. Three runs of 300 children each.
#
# One line per check, then "N passed, N failed"; exit status 0 or 1.

set -u
BUILD=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/prefs-fork-swift.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
. "$ROOT/Tests/lib.sh"

# shellcheck disable=SC2046
if swiftc -O -I "$BUILD/Modules" -Xcc -fmodule-map-file="$ROOT/Sources/CProcessHooks/include/module.modulemap" \
    -I "$ROOT/Sources/CSystemShims" -I "$ROOT/Sources/CLibXML2" $(pkg-config --cflags libxml-2.0 | sed 's/-I/-Xcc -I/g') \
    -o "$WORK/declaring" "$ROOT/Tests/fork/declaring.swift" \
    "$BUILD"/PrefsCore.build/*.o "$BUILD"/CProcessHooks.build/*.o "$BUILD"/CLibXML2.build/*.o >"$WORK/swiftc.log" 2>&1; then
    pass "fork/the program builds with PrefsCore"
    for run in 1 2 3; do
        home=$WORK/home$run
        mkdir -p "$home/config"
        # A child that hangs is killed by its alarm; the whole run by timeout.
        if out=$(env HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_RUNTIME_DIR="$home" \
            PREFS_SYSTEM_DIR="$home/system" PREFS_MANAGED_DIR="$home/managed" \
            timeout 300 "$WORK/declaring" 300 2>&1) && [ "$(printf '%s' "$out" | tail -1)" = "300 children ok" ]; then
            pass "fork/run $run: 300 children forked while typed keys are declared set and read"
        else
            fail "fork/run $run: 300 children forked while typed keys are declared set and read" "$(printf '%s' "$out" | head -c 300)"
        fi
    done
else
    fail "fork/the program builds with PrefsCore" "$(head -c 600 "$WORK/swiftc.log")"
fi

summary
