#!/usr/bin/env bash
#
# api-check.sh [--update] <modules folder> — the Swift API guard: the public
# declarations of each Swift product (PrefsCore, PrefsFoundation), read
# from the built modules in <modules folder> by swift-symbolgraph-extract
# and listed by tools/api-list.py, must be exactly those of the committed
# api/<Module>.swift-api.txt. Any difference fails and shows it as a diff
# (lines starting "-" left the API, "+" joined it).
#
# --update rewrites the lists from the modules, for a deliberate change.
# Review the difference before committing it.
#
# Prints "N passed, N failed"; exit status 0, 1 on a difference, 2 on bad
# usage.

set -u
update=0
if [ "${1:-}" = --update ]; then update=1; shift; fi
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
    echo "usage: $0 [--update] <folder of the built .swiftmodule files>" >&2
    exit 2
fi
MODULES=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/Tests/lib.sh"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/prefs-api.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

for module in PrefsCore PrefsFoundation; do
    list=api/$module.swift-api.txt
    mkdir -p "$WORK/$module"
    # The C modules PrefsCore imports are found through their module maps.
    if ! swift-symbolgraph-extract -module-name "$module" -I "$MODULES" \
        -I "$ROOT/Sources/CLibXML2/include" -I "$ROOT/Sources/CSystemShims" \
        -I "$ROOT/Sources/CProcessHooks/include" \
        -minimum-access-level public -skip-synthesized-members \
        -output-dir "$WORK/$module" >"$WORK/$module.log" 2>&1 ||
        ! python3 "$ROOT/tools/api-list.py" "$module" "$WORK/$module" >"$WORK/$module.txt" 2>>"$WORK/$module.log"; then
        fail "api/$module" "the API could not be read from $MODULES" "$WORK/$module.log"
        continue
    fi
    if [ "$update" = 1 ]; then
        mkdir -p "$ROOT/api"
        cp "$WORK/$module.txt" "$ROOT/$list"
        pass "api/$module" "wrote $(grep -c . "$ROOT/$list") lines to $list"
    elif [ ! -f "$ROOT/$list" ]; then
        fail "api/$module" "$list is missing: make api-update writes it"
    elif cmp -s "$WORK/$module.txt" "$ROOT/$list"; then
        pass "api/$module" "$(grep -c . "$ROOT/$list") lines, as listed in $list"
    else
        fail "api/$module" "the public Swift API differs from $list"
        diff -U0 "$ROOT/$list" "$WORK/$module.txt" | grep '^[-+][^-+]' | sed 's/^/      | /'
        cat <<MSG
      |
      | $list is the Swift API users of $module compile against.
      | If the change is deliberate (a declaration documented for Swift
      | users, or one that only this package needs made \`package\`), run
      |  make api-update  and commit the list with the change; removing or
      | changing a public declaration breaks the programs that use it.
MSG
    fi
done
summary
