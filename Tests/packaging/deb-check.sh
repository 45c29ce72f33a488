#!/usr/bin/env bash
#
# deb-check.sh <dir> — the Debian packages in <dir> (from `make deb`), used
# as a user of the packages would use them:
#
#   deb/contents       libprefs1, libprefs-dev and prefs hold what each should
#                      (and libprefs1 its symbols and shlibs files)
#   deb/elf            unpacked with dpkg -x into a scratch root: no RUNPATH or
#                      RPATH in any ELF file, BIND_NOW, RELRO
#   deb/pkg-config     pkg-config finds prefs in the root
#                      (PKG_CONFIG_SYSROOT_DIR, PKG_CONFIG_LIBDIR)
#   deb/c-program      a C program compiled and linked against the root
#                      through pkg-config, run with the root's library
#   deb/prefs          the root's prefs reads what that program wrote
#   deb/defaults       usr/libexec/prefs/defaults leads to prefs and runs as defaults
#   deb/lintian        lintian reports no error and no warning (each one
#                      fixed or overridden, with its reason, in debian/)
#
# The scratch root is not a system: programs find its library through
# LD_LIBRARY_PATH, as they would find /usr/lib/<multiarch> by default once
# the packages are installed. One line per check, then "N passed, N failed".
# Environment: CC, CFLAGS, LDFLAGS.

set -u
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
    echo "usage: $0 <directory with the .deb files>" >&2
    exit 2
fi
DEBS=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=lib.sh
. "$ROOT/Tests/packaging/lib.sh"

CC=${CC:-cc}
CFLAGS=${CFLAGS--O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2}
LDFLAGS=${LDFLAGS--Wl,-z,relro -Wl,-z,now}
VERSION=$(cat "$ROOT/VERSION")
MAJOR=${VERSION%%.*}
ARCH=$(dpkg --print-architecture)
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
LIBDIR=usr/lib/$MULTIARCH
unset LD_LIBRARY_PATH PKG_CONFIG_PATH PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR

WORK=$(mktemp -d "${TMPDIR:-/tmp}/prefs-deb.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

deb_of() { printf '%s/%s_%s_%s.deb' "$DEBS" "$1" "$VERSION" "$ARCH"; }

# ---- Contents ------------------------------------------------------------------

# expect_files PACKAGE PATH...: the package holds each PATH.
expect_files() {
    local pkg=$1 deb missing=""
    shift
    deb=$(deb_of "$pkg")
    if [ ! -f "$deb" ]; then
        fail "deb/contents $pkg" "$(basename "$deb") was not built"
        return
    fi
    dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./||' >"$WORK/$pkg.list"
    for f in "$@"; do
        grep -qxF "$f" "$WORK/$pkg.list" || missing="$missing $f"
    done
    if [ -n "$missing" ]; then
        fail "deb/contents $pkg" "missing:$missing"
    else
        pass "deb/contents $pkg" "$*"
    fi
}
expect_files "libprefs$MAJOR" "$LIBDIR/libprefs.so.$VERSION" "$LIBDIR/libprefs.so.$MAJOR" \
    "usr/share/doc/libprefs$MAJOR/copyright" "usr/share/doc/libprefs$MAJOR/NOTICE"
expect_files libprefs-dev "$LIBDIR/libprefs.so" "$LIBDIR/pkgconfig/prefs.pc" \
    usr/include/prefs/Prefs.h usr/include/prefs/module.modulemap usr/include/prefs/CPrefs.apinotes
expect_files prefs usr/bin/prefs usr/share/man/man1/prefs.1.gz usr/libexec/prefs/defaults

lib_deb=$(deb_of "libprefs$MAJOR")
if [ -f "$lib_deb" ]; then
    dpkg-deb -e "$lib_deb" "$WORK/control"
    if [ -f "$WORK/control/symbols" ] && grep -q "^libprefs.so.$MAJOR libprefs$MAJOR" "$WORK/control/symbols" &&
       [ -f "$WORK/control/shlibs" ] && grep -q "^libprefs $MAJOR libprefs$MAJOR" "$WORK/control/shlibs"; then
        pass "deb/contents libprefs$MAJOR control" "symbols ($(grep -c '^ ' "$WORK/control/symbols") symbols), shlibs"
    else
        fail "deb/contents libprefs$MAJOR control" "no symbols or shlibs file for libprefs.so.$MAJOR" "$WORK/control/symbols"
    fi
    sbu=$(dpkg-deb -f "$lib_deb" Static-Built-Using)
    if [ -n "$sbu" ]; then
        pass "deb/static-built-using" "$sbu"
    else
        fail "deb/static-built-using" "libprefs$MAJOR has no Static-Built-Using field"
    fi
fi

# ---- A scratch root --------------------------------------------------------------

SYSROOT=$WORK/root
mkdir -p "$SYSROOT"
for pkg in "libprefs$MAJOR" libprefs-dev prefs; do
    [ -f "$(deb_of "$pkg")" ] && dpkg -x "$(deb_of "$pkg")" "$SYSROOT"
done
check_elf_hardening deb/elf "$SYSROOT"

# pkg-config as it is used against a root: the root's .pc files only, every
# directory prefixed with the root, including the ones that are system
# directories on this machine (/usr/include, /usr/lib/<multiarch>).
export PKG_CONFIG_SYSROOT_DIR=$SYSROOT
# The root holds only our packages, and prefs.pc needs no other .pc
# (libxml2 is opened at run time: no -I/usr/include/libxml2, no
# libxml2-dev), so only the root's directories are searched.
export PKG_CONFIG_LIBDIR=$SYSROOT/$LIBDIR/pkgconfig:$SYSROOT/usr/share/pkgconfig
export PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
if pc_flags=$(pkg-config --cflags --libs --static prefs 2>"$WORK/pc.log") && [ "$(pkg-config --modversion prefs)" = "$VERSION" ] &&
    ! grep -q xml <<<"$pc_flags"; then
    pass deb/pkg-config "$(echo "$pc_flags" | sed "s|$SYSROOT|<root>|g")"
else
    fail deb/pkg-config "pkg-config finds no prefs $VERSION in the root" "$WORK/pc.log"
fi

cat >"$WORK/app.c" <<'C'
#include <prefs/Prefs.h>
#include <stdio.h>

int main(void) {
    PrefsStringRef s = PrefsStringCreate("from a packaged library");
    PrefsSetAppValue("Greeting", s, "com.example.deb");
    PrefsRelease(s);
    if (!PrefsAppSynchronize("com.example.deb"))
        return 1;
    printf("library %d, header %d\n", PrefsGetVersionNumber(), PREFS_VERSION_NUMBER);
    return PrefsGetVersionNumber() == PREFS_VERSION_NUMBER ? 0 : 1;
}
C
# shellcheck disable=SC2086
if ! $CC $CFLAGS -std=c99 -Wall -Wextra -Werror -o "$WORK/app" "$WORK/app.c" $pc_flags $LDFLAGS >"$WORK/cc.log" 2>&1; then
    fail deb/c-program "does not compile against the root" "$WORK/cc.log"
else
    loaded=$(LD_LIBRARY_PATH=$SYSROOT/$LIBDIR LD_TRACE_LOADED_OBJECTS=1 "$WORK/app" | awk '$1 ~ /^libprefs/ { print $3 }')
    if [ "$loaded" != "$SYSROOT/$LIBDIR/libprefs.so.$MAJOR" ]; then
        fail deb/c-program "loads libprefs from '${loaded:-nowhere}', not from the root"
    elif LD_LIBRARY_PATH=$SYSROOT/$LIBDIR XDG_CONFIG_HOME=$WORK/config XDG_CACHE_HOME=$WORK/cache "$WORK/app" >"$WORK/app.log" 2>&1; then
        pass deb/c-program "built with \$(pkg-config --cflags --libs prefs), ran: $(cat "$WORK/app.log")"
    else
        fail deb/c-program "exit status $?" "$WORK/app.log"
    fi
fi

if LD_LIBRARY_PATH=$SYSROOT/$LIBDIR XDG_CONFIG_HOME=$WORK/config XDG_CACHE_HOME=$WORK/cache "$SYSROOT/usr/bin/prefs" read com.example.deb Greeting \
        >"$WORK/prefs.log" 2>&1 && [ "$(cat "$WORK/prefs.log")" = "from a packaged library" ]; then
    pass deb/prefs "the packaged prefs reads what the C program wrote"
else
    fail deb/prefs "prefs read: $(head -c 200 "$WORK/prefs.log")"
fi
if [ "$(readlink "$SYSROOT/usr/libexec/prefs/defaults")" = ../../bin/prefs ] &&
    LD_LIBRARY_PATH=$SYSROOT/$LIBDIR XDG_CONFIG_HOME=$WORK/config "$SYSROOT/usr/libexec/prefs/defaults" \
        read-type com.example.deb Greeting 2>&1 | grep -qx 'Type is string'; then
    pass deb/defaults "usr/libexec/prefs/defaults -> ../../bin/prefs, runs as defaults"
else
    fail deb/defaults "usr/libexec/prefs/defaults: $(ls -l "$SYSROOT/usr/libexec/prefs/defaults" 2>&1)"
fi

# ---- lintian ---------------------------------------------------------------------

if ! command -v lintian >/dev/null 2>&1; then
    fail deb/lintian "lintian is not installed (make deps installs it)"
else
    mains=()
    for pkg in "libprefs$MAJOR" libprefs-dev prefs; do
        [ -f "$(deb_of "$pkg")" ] && mains+=("$(deb_of "$pkg")")
    done
    # The -dbgsym packages debhelper makes can carry no override file. The
    # one warning they get, unknown-field Static-Built-Using, comes with the
    # field they inherit from their package, where it is overridden with its
    # reason (debian/*.lintian-overrides): it is suppressed for them here.
    dbgsyms=("$DEBS"/*-dbgsym_*.deb)
    lintian --fail-on error,warning "${mains[@]}" >"$WORK/lintian.log" 2>&1
    status=$?
    if [ -e "${dbgsyms[0]}" ]; then
        lintian --fail-on error,warning --suppress-tags unknown-field "${dbgsyms[@]}" >>"$WORK/lintian.log" 2>&1 ||
            status=1
    fi
    grep -v '^running with root privileges' "$WORK/lintian.log" >"$WORK/lintian.tags"
    if [ "$status" -eq 0 ]; then
        pass deb/lintian "no error or warning$( [ -s "$WORK/lintian.tags" ] && echo "; $(grep -c . "$WORK/lintian.tags") notes")"
    else
        fail deb/lintian "errors or warnings" "$WORK/lintian.tags"
    fi
fi

summary
