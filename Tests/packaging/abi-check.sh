#!/usr/bin/env bash
#
# abi-check.sh [--update] <libprefs.so> — the ABI guard: the symbols the
# built library exports (nm -D --defined-only, with their version node) must
# be exactly those listed in debian/libprefs<major>.symbols, the committed
# list of the ABI of libprefs.so.<major>. Any difference fails, naming each symbol.
#
# --update rewrites the list from the library, for a deliberate change:
# symbols already listed keep the version that introduced them, new ones
# get the version in VERSION. Review the difference before committing it.
#
# Prints "N passed, N failed"; exit status 0, 1 on a difference, 2 on bad
# usage.

set -u
update=0
if [ "${1:-}" = --update ]; then update=1; shift; fi
if [ $# -ne 1 ] || [ ! -f "$1" ]; then
    echo "usage: $0 [--update] <path of the built libprefs.so>" >&2
    exit 2
fi
LIB=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VERSION=$(cat "$ROOT/VERSION")
MAJOR=${VERSION%%.*}
LIST=$ROOT/debian/libprefs$MAJOR.symbols
NAME=debian/libprefs$MAJOR.symbols

WORK=$(mktemp -d "${TMPDIR:-/tmp}/prefs-abi.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# name@node, one a line, sorted: what the library exports. lld puts no
# symbol for the version node itself; GNU ld would (type A), so skip those.
if ! nm -D --defined-only "$LIB" >"$WORK/nm" 2>"$WORK/nm.err"; then
    echo "FAIL  abi/exports  (nm -D failed: $(head -n 1 "$WORK/nm.err"))"
    echo "0 passed, 1 failed"
    exit 1
fi
awk '$(NF-1) != "A" { s = $NF; sub(/@@/, "@", s); print s }' "$WORK/nm" | LC_ALL=C sort -u >"$WORK/built"

if [ "$update" = 1 ]; then
    {
        echo "libprefs.so.$MAJOR libprefs$MAJOR #MINVER#"
        echo "* Build-Depends-Package: libprefs-dev"
        [ -f "$LIST" ] && cp "$LIST" "$WORK/old" || : >"$WORK/old"
        awk -v v="$VERSION" '
            FILENAME == ARGV[1] { if ($0 ~ /^ /) since[$1] = $2; next }
            { print " " $1 " " (($1 in since) ? since[$1] : v) }
        ' "$WORK/old" "$WORK/built"
    } >"$WORK/new"
    mv "$WORK/new" "$LIST"
    echo "abi-check: wrote $(grep -c '^ ' "$LIST") symbols to $NAME"
    exit 0
fi

if [ ! -f "$LIST" ]; then
    echo "FAIL  abi/exports  ($NAME is missing: make abi-update writes it)"
    echo "0 passed, 1 failed"
    exit 1
fi
awk '/^ / { print $1 }' "$LIST" | LC_ALL=C sort -u >"$WORK/listed"

if cmp -s "$WORK/built" "$WORK/listed"; then
    echo "PASS  abi/exports  ($(grep -c . "$WORK/built") symbols, as listed in $NAME)"
    echo "1 passed, 0 failed"
    exit 0
fi

echo "FAIL  abi/exports  (the library's exports differ from $NAME)"
LC_ALL=C comm -23 "$WORK/built" "$WORK/listed" | sed 's/^/      | exported, not listed: /'
LC_ALL=C comm -13 "$WORK/built" "$WORK/listed" | sed 's/^/      | listed, not exported: /'
cat <<MSG
      |
      | $NAME is the ABI of libprefs.so.$MAJOR. If the change is
      | deliberate:
      |  - a new function: declare it in include/prefs/Prefs.h, give it a new
      |    version node in Sources/Prefs/exports.map (LIBPREFS_$MAJOR.<minor>),
      |    raise the minor version in VERSION, then run  make abi-update  and
      |    commit the list with the change;
      |  - a removed or changed symbol breaks every program linked against
      |    libprefs.so.$MAJOR: that takes a new major version (VERSION, and
      |    the SONAME in Package.swift), not an update of the list.
MSG
echo "0 passed, 1 failed"
exit 1
