#!/usr/bin/env bash
#
# install-check.sh — what `make install` puts where, as a distribution and
# as a user with a private prefix would install it:
#
#   install/distribution   make install DESTDIR=<tmp> PREFIX=/usr: the
#                          multiarch LIBDIR, no RUNPATH or RPATH in any ELF
#                          file (readelf -d), BIND_NOW and RELRO, a prefs.pc
#                          with no rpath, usr/libexec/prefs/defaults a
#                          relative symlink to ../../bin/prefs
#   install/uninstall      make uninstall (same variables) removes every file
#                          install put and nothing else
#   install/strip          make install-strip: no symbol table or debug
#                          information, the same exports
#   install/private-prefix make install PREFIX=<tmp>: a C program built as the
#                          README says (pkg-config, plus an rpath to the
#                          private libdir) and bin/prefs run without
#                          LD_LIBRARY_PATH, and so does libexec/prefs/defaults,
#                          which behaves as defaults (usage names it)
#
# Run from `make test-install`, after `make build`. One line per check, then
# "N passed, N failed"; exit status 0 or 1.
# Environment: MAKE (default make), CC, CFLAGS, LDFLAGS.

set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
# shellcheck source=lib.sh
. "$ROOT/Tests/packaging/lib.sh"

MAKE=${MAKE:-make}
CC=${CC:-cc}
CFLAGS=${CFLAGS--O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2}
LDFLAGS=${LDFLAGS--Wl,-z,relro -Wl,-z,now}
VERSION=$(cat VERSION)
MAJOR=${VERSION%%.*}
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null)
unset LD_LIBRARY_PATH PKG_CONFIG_PATH PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR DESTDIR PREFIX LIBDIR

WORK=$(mktemp -d "${TMPDIR:-/tmp}/prefs-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# install_into LOG VARS...: make install with VARS, quietly.
run_make() {
    local log=$1
    shift
    "$MAKE" --no-print-directory "$@" >"$log" 2>&1
}

# ---- A distribution install ------------------------------------------------

DEST=$WORK/dest
LIBDIR=/usr/lib${MULTIARCH:+/$MULTIARCH}
# Files that were there before and must outlive uninstall.
mkdir -p "$DEST/usr/bin" "$DEST$LIBDIR" "$DEST/usr/include"
for keep in usr/bin/other "${LIBDIR#/}/libother.so.1" usr/include/other.h; do
    echo keep >"$DEST/$keep"
done

if ! run_make "$WORK/install.log" install DESTDIR="$DEST" PREFIX=/usr; then
    fail install/distribution "make install DESTDIR=... PREFIX=/usr failed" "$WORK/install.log"
else
    missing=""
    for f in usr/bin/prefs usr/libexec/prefs/prefs-ui "${LIBDIR#/}/libprefs.so.$VERSION" "${LIBDIR#/}/libprefs.so.$MAJOR" "${LIBDIR#/}/libprefs.so" \
             "${LIBDIR#/}/pkgconfig/prefs.pc" usr/include/prefs/Prefs.h usr/include/prefs/module.modulemap usr/include/prefs/CPrefs.apinotes \
             usr/share/man/man1/prefs.1 usr/libexec/prefs/defaults usr/share/bash-completion/completions/prefs \
             usr/share/zsh/vendor-completions/_prefs; do
        [ -e "$DEST/$f" ] || missing="$missing $f"
    done
    if [ -n "$missing" ]; then
        fail install/distribution-layout "missing:$missing"
    else
        pass install/distribution-layout "LIBDIR $LIBDIR, include/prefs, share/man/man1"
    fi

    check_elf_hardening install/distribution-elf "$DEST"

    if [ "$(readlink "$DEST/usr/libexec/prefs/defaults")" = ../../bin/prefs ]; then
        pass install/distribution-defaults "usr/libexec/prefs/defaults -> ../../bin/prefs"
    else
        fail install/distribution-defaults "usr/libexec/prefs/defaults: $(ls -l "$DEST/usr/libexec/prefs/defaults" 2>&1)"
    fi

    pc=$DEST$LIBDIR/pkgconfig/prefs.pc
    if grep -Eq 'rpath|-Wl' "$pc"; then
        fail install/distribution-pc "prefs.pc carries linker options: $(grep -E 'rpath|-Wl' "$pc")"
    elif ! grep -qx "libdir=\${exec_prefix}/lib${MULTIARCH:+/$MULTIARCH}" "$pc" || ! grep -qx "prefix=/usr" "$pc" ||
         ! grep -qx "Version: $VERSION" "$pc"; then
        fail install/distribution-pc "unexpected prefix, libdir or Version" "$pc"
    else
        pass install/distribution-pc "no rpath; libdir=\${exec_prefix}/lib${MULTIARCH:+/$MULTIARCH}, Version $VERSION"
    fi

    if ! run_make "$WORK/uninstall.log" uninstall DESTDIR="$DEST" PREFIX=/usr; then
        fail install/uninstall "make uninstall failed" "$WORK/uninstall.log"
    else
        left=$(cd "$DEST" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' ')
        want=$(printf '%s\n' usr/bin/other "${LIBDIR#/}/libother.so.1" usr/include/other.h | LC_ALL=C sort | tr '\n' ' ')
        if [ "$left" = "$want" ]; then
            pass install/uninstall "every installed file removed, other files kept"
        else
            fail install/uninstall "left: ${left:-nothing}; expected exactly: $want"
        fi
    fi
fi

# ---- install-strip -----------------------------------------------------------

SDEST=$WORK/strip
if ! run_make "$WORK/strip.log" install-strip DESTDIR="$SDEST" PREFIX=/usr; then
    fail install/strip "make install-strip failed" "$WORK/strip.log"
else
    lib=$SDEST$LIBDIR/libprefs.so.$VERSION
    unstripped=""
    for f in "$lib" "$SDEST/usr/bin/prefs"; do
        readelf -SW "$f" | grep -Eq ' \.(symtab|debug_info) ' && unstripped="$unstripped ${f#"$SDEST"/}"
    done
    built=$(nm -D --defined-only "$("$MAKE" --no-print-directory -s print-build-dir)/libprefs.so" 2>/dev/null | wc -l)
    stripped=$(nm -D --defined-only "$lib" | wc -l)
    if [ -n "$unstripped" ]; then
        fail install/strip "still has a symbol table or debug information:$unstripped"
    elif [ "$built" -eq 0 ] || [ "$built" != "$stripped" ]; then
        fail install/strip "exports $stripped symbols, the built library $built"
    else
        pass install/strip "no .symtab or .debug_info; $stripped exports kept"
    fi
fi

# ---- A private prefix, as the README builds against it -----------------------

PRIV=$WORK/private
if ! run_make "$WORK/private.log" install PREFIX="$PRIV"; then
    fail install/private-prefix "make install PREFIX=$PRIV failed" "$WORK/private.log"
else
    export PKG_CONFIG_PATH=$PRIV/lib${MULTIARCH:+/$MULTIARCH}/pkgconfig
    cat >"$WORK/app.c" <<'C'
#include <prefs/Prefs.h>
#include <stdio.h>

int main(void) {
    PrefsNumberRef size = PrefsNumberCreateInt64(14);
    PrefsSetAppValue("FontSize", size, "com.example.install");
    PrefsRelease(size);
    bool valid;
    int64_t n = PrefsGetAppIntegerValue("FontSize", "com.example.install", &valid);
    if (!valid || n != 14 || !PrefsAppSynchronize("com.example.install"))
        return 1;
    printf("library %d, header %d\n", PrefsGetVersionNumber(), PREFS_VERSION_NUMBER);
    return PrefsGetVersionNumber() == PREFS_VERSION_NUMBER ? 0 : 1;
}
C
    # shellcheck disable=SC2046,SC2086
    if ! $CC $CFLAGS -std=c99 -Wall -Wextra -Werror -o "$WORK/app" "$WORK/app.c" \
            $(pkg-config --cflags --libs prefs) -Wl,-rpath,"$(pkg-config --variable=libdir prefs)" $LDFLAGS \
            >"$WORK/cc.log" 2>&1; then
        fail install/private-prefix-c "does not compile as the README says" "$WORK/cc.log"
    elif ! XDG_CONFIG_HOME=$WORK/config XDG_CACHE_HOME=$WORK/cache "$WORK/app" >"$WORK/app.log" 2>&1; then
        fail install/private-prefix-c "runs without LD_LIBRARY_PATH: exit status $?" "$WORK/app.log"
    else
        pass install/private-prefix-c "pkg-config and -Wl,-rpath,\$(pkg-config --variable=libdir prefs): $(cat "$WORK/app.log")"
    fi
    if XDG_CONFIG_HOME=$WORK/config XDG_CACHE_HOME=$WORK/cache "$PRIV/bin/prefs" read com.example.install FontSize >"$WORK/prefs.log" 2>&1 &&
       [ "$(cat "$WORK/prefs.log")" = 14 ]; then
        pass install/private-prefix-prefs "bin/prefs runs without LD_LIBRARY_PATH and reads what the C program wrote"
    else
        fail install/private-prefix-prefs "bin/prefs read: $(head -c 200 "$WORK/prefs.log")"
    fi
    if XDG_CONFIG_HOME=$WORK/config "$PRIV/libexec/prefs/defaults" read-type com.example.install FontSize >"$WORK/defaults.log" 2>&1 &&
       [ "$(cat "$WORK/defaults.log")" = "Type is integer" ] &&
       "$PRIV/libexec/prefs/defaults" help 2>&1 | head -n 1 | grep -q '^usage: defaults '; then
        pass install/private-prefix-defaults "libexec/prefs/defaults runs without LD_LIBRARY_PATH, as defaults"
    else
        fail install/private-prefix-defaults "libexec/prefs/defaults read-type: $(head -c 200 "$WORK/defaults.log")"
    fi
fi

summary
