#!/usr/bin/env bash
#
# version-check.sh — every copy of the version number agrees with VERSION,
# the one source. The Makefile derives the installed file name, the .pc and
# the SONAME's major from VERSION, and the tests read it; the files below
# must carry the number as a literal, so they are compared with it:
#
#   include/prefs/Prefs.h       PREFS_VERSION_STRING, PREFS_VERSION_NUMBER
#                               (literals, so that Swift imports them)
#   Package.swift               -soname=libprefs.so.<major>
#   Sources/Prefs/exports.map   version nodes LIBPREFS_<major>.<minor>
#   doc/*.[1-8]                 the .TH line's "libprefs <version>"
#   debian/changelog            the newest entry
#   debian/control, debian/libprefs<major>.symbols
#                               the package libprefs<major>, the SONAME
#   bindings/python/prefs/__init__.py
#                               __version__ (the Python package's version,
#                               which pyproject.toml takes from it)
#
# To release a new version: edit VERSION, then each file this check names.
#
# One line per check, then "N passed, N failed"; exit status 0 or 1.

set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2

. "$ROOT/Tests/lib.sh"

VERSION=$(cat VERSION 2>/dev/null)
if ! printf '%s\n' "$VERSION" | grep -Eqx '(0|[1-9][0-9]*)\.(0|[1-9][0-9]?)\.(0|[1-9][0-9]?)'; then
    fail version/VERSION "VERSION holds '$VERSION', not major.minor.patch (minor and patch below 100)"
    summary
    exit 1
fi
pass version/VERSION "$VERSION"
IFS=. read -r MAJOR MINOR PATCH <<<"$VERSION"
NUMBER=$((MAJOR * 10000 + MINOR * 100 + PATCH))

# check NAME WANT GOT FILE
check() {
    if [ "$2" = "$3" ]; then
        pass "$1" "$4: $3"
    else
        fail "$1" "$4 says '${3:-nothing}', VERSION says '$2'"
    fi
}

check version/header-string "$VERSION" \
    "$(sed -n 's/^#define PREFS_VERSION_STRING "\(.*\)"$/\1/p' include/prefs/Prefs.h)" include/prefs/Prefs.h
check version/header-number "$NUMBER" \
    "$(sed -n 's/^#define PREFS_VERSION_NUMBER \([0-9]*\)$/\1/p' include/prefs/Prefs.h)" include/prefs/Prefs.h
check version/soname "libprefs.so.$MAJOR" \
    "$(grep -o -- '-soname=[^"]*' Package.swift | sed 's/^-soname=//')" Package.swift

nodes=$(grep -oE '^[[:space:]]*LIBPREFS_[0-9]+\.[0-9]+' Sources/Prefs/exports.map | tr -d ' \t')
bad_nodes=$(printf '%s\n' "$nodes" | grep -v "^LIBPREFS_$MAJOR\.")
if [ -z "$nodes" ]; then
    fail version/export-nodes "Sources/Prefs/exports.map has no LIBPREFS_<major>.<minor> node"
elif [ -n "$bad_nodes" ]; then
    fail version/export-nodes "Sources/Prefs/exports.map: $(echo $bad_nodes) not of major $MAJOR"
else
    pass version/export-nodes "Sources/Prefs/exports.map: $(echo $nodes)"
fi

shopt -s nullglob
pages=(doc/*.[1-8])
if [ ${#pages[@]} -eq 0 ]; then
    fail version/man-pages "no man page in doc/"
fi
for page in "${pages[@]}"; do
    check "version/man-page $(basename "$page")" "libprefs $VERSION" \
        "$(sed -n 's/^\.TH .*"\(libprefs [^"]*\)".*$/\1/p' "$page" | head -n 1)" "$page .TH"
done

check version/debian-changelog "$VERSION" \
    "$(sed -n '1s/^libprefs (\([^)]*\)).*$/\1/p' debian/changelog)" debian/changelog
check version/debian-package "libprefs$MAJOR" \
    "$(sed -n 's/^Package: \(libprefs[0-9][0-9]*\)$/\1/p' debian/control)" debian/control
SYMBOLS=debian/libprefs$MAJOR.symbols
check version/debian-symbols "libprefs.so.$MAJOR libprefs$MAJOR #MINVER#" \
    "$(head -n 1 "$SYMBOLS" 2>/dev/null)" "$SYMBOLS"
newer=$(awk '/^ / { print $2 }' "$SYMBOLS" 2>/dev/null | sort -u | while read -r v; do
    dpkg --compare-versions "$v" gt "$VERSION" && echo "$v"; done)
if [ -n "$newer" ]; then
    fail version/debian-symbols-since "$SYMBOLS names versions after $VERSION: $(echo $newer)"
else
    pass version/debian-symbols-since "no symbol is newer than $VERSION"
fi

check version/python-package "$VERSION" \
    "$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' bindings/python/prefs/__init__.py)" \
    bindings/python/prefs/__init__.py

if grep -q '^Version: @VERSION@$' pkgconfig/prefs.pc.in; then
    pass version/pkg-config "pkgconfig/prefs.pc.in: @VERSION@, filled in from VERSION"
else
    fail version/pkg-config "pkgconfig/prefs.pc.in does not take its Version from @VERSION@"
fi

summary
