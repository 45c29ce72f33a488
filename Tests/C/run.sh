#!/usr/bin/env bash
#
# run.sh <prefix> — the C tests, against the library installed in <prefix>
# (by `make install PREFIX=<prefix>`), built the way a user of a private
# prefix builds (README):
#
#   cc -std=c99 -Wall -Wextra -Werror app.c $(pkg-config --cflags --libs prefs) \
#       -Wl,-rpath,$(pkg-config --variable=libdir prefs)
#
# with PKG_CONFIG_PATH=<prefix>/lib/pkgconfig (or <prefix>/lib/<multiarch>/
# pkgconfig) and run without LD_LIBRARY_PATH: the .pc carries no rpath, so
# the program names the private libdir itself, as the README says.
#
# Items, one line each, then "N passed, N failed":
#   header/*     Prefs.h compiles warning-free as C99 (gcc, clang) and C++11
#                (g++), links and runs
#   library/*    exports only Prefs*/kPrefs* (and prefs_tool_main, the
#                private entry point of bin/prefs, and prefs_tool_escape,
#                the terminal escaping prefs-ui shares with it, in their own
#                version node LIBPREFS_PRIVATE), exports every function the
#                header declares, SONAME libprefs.so.1, no Swift runtime or
#                Foundation needed, the installed file layout
#   example/*    examples/xml_demo.c builds and runs; examples/cprefs.swift
#                builds with swiftc through the installed module map
#   test_*       each Tests/C/test_*.c, compiled and run
#
# Exit status: 0 when every item passed, 1 otherwise, 2 on bad usage.
# Environment: CC, CLANG, CXX pick the compilers; CFLAGS and LDFLAGS are
# added to every compile and link (default: the hardening flags
# -O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2, -Wl,-z,relro -Wl,-z,now;
# set them empty for none); VERBOSE=1 prints the output of passing items
# too; TEST_TIMEOUT (seconds, default 900).
#
# SANITIZE=1: for a library built with AddressSanitizer (and UBSan over
# its C parts), as `make test-c-asan` installs it. Every program is linked
# by clang (CC defaults to $CLANG) with -fsanitize=address,undefined, so
# the sanitizer runtimes the library needs come from the executable; gcc
# and g++ still compile the header checks, clang links them. LeakSanitizer
# is on (suppressions: Tests/lsan.supp, code that is not ours), and an item
# fails on any AddressSanitizer, LeakSanitizer or UBSan report, in the
# program or in a process it started. Every item runs; none is skipped.

set -u

if [ $# -ne 1 ]; then
    echo "usage: $0 <prefix>" >&2
    exit 2
fi
if [ ! -d "$1" ]; then
    echo "$0: $1: no such directory (run make install PREFIX=$1 first)" >&2
    exit 2
fi
PREFIX=$(cd "$1" && pwd)
# test_managed runs the installed prefs as another libprefs process.
export PREFS_BIN=$PREFIX/bin/prefs
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CLANG=${CLANG:-clang}
SANITIZE=${SANITIZE:-0}
if [ "$SANITIZE" = 1 ]; then
    CC=${CC:-$CLANG}
else
    CC=${CC:-cc}
fi
CXX=${CXX:-g++}
CLANGXX=${CLANGXX:-clang++}
TEST_TIMEOUT=${TEST_TIMEOUT:-900}
VERBOSE=${VERBOSE:-0}
# Word splitting of the flags is intended, as in a Makefile.
# shellcheck disable=SC2206
USER_CFLAGS=(${CFLAGS--O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2})
# shellcheck disable=SC2206
USER_LDFLAGS=(${LDFLAGS--Wl,-z,relro -Wl,-z,now})
VERSION=$(cat "$ROOT/VERSION")
MAJOR=${VERSION%%.*}

# SAN: the flags every program is linked with (none without SANITIZE=1).
SAN=()
if [ "$SANITIZE" = 1 ]; then
    SAN=(-fsanitize=address,undefined -fno-omit-frame-pointer -fuse-ld=lld)
    # Later settings win, so the caller's own options come last. A report
    # ends the program with exit status 1.
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
    export LSAN_OPTIONS="suppressions=$ROOT/Tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fi
SANITIZER_REPORT='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: |SUMMARY: UndefinedBehaviorSanitizer'

PKG_CONFIG_PATH=$(for d in "$PREFIX"/lib/pkgconfig "$PREFIX"/lib/*/pkgconfig; do [ -d "$d" ] && printf '%s:' "$d"; done)
export PKG_CONFIG_PATH=${PKG_CONFIG_PATH%:}
unset PKG_CONFIG_LIBDIR
unset LD_LIBRARY_PATH

WORK=$(mktemp -d "${TMPDIR:-/tmp}/prefs-c-tests.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

. "$ROOT/Tests/lib.sh"

# on_fail NAME DETAIL [LOGFILE]: what a failed item's log says (fail
# prints the item's line first).
on_fail() {
    if [ -n "${3:-}" ] && [ -s "$3" ]; then
        if grep -Eq "$SANITIZER_REPORT" "$3"; then
            # The first sanitizer report, from its first line.
            awk -v re="$SANITIZER_REPORT" '$0 ~ re { p = 1 } p' "$3" | head -n 80 | sed 's/^/      | /'
        elif grep -q 'CHECK failed' "$3"; then
            # The failed checks with their detail lines, then the summary.
            awk '/CHECK failed/ { p = 1; print; next } /^    / { if (p) print; next } { p = 0 }' "$3" |
                head -n 120 | sed 's/^/      | /'
            tail -n 1 "$3" | sed 's/^/      | /'
        else
            # A crash, a compile error: the end of the log tells.
            tail -n 60 "$3" | sed 's/^/      | /'
        fi
    fi
}

# show LOGFILE: the log of a passing item, when VERBOSE=1.
show() {
    if [ "$VERBOSE" = 1 ] && [ -s "$1" ]; then
        sed 's/^/      | /' "$1"
    fi
}

# run_limited LOG COMMAND...: runs the command with a time limit, output to LOG.
run_limited() {
    local log=$1
    shift
    if command -v timeout >/dev/null 2>&1; then
        timeout --kill-after=10 "$TEST_TIMEOUT" "$@" >"$log" 2>&1
    else
        "$@" >"$log" 2>&1
    fi
}

# sanitizer_clean LOG: no sanitizer report in LOG (a process started by the
# program may report without changing the program's exit status).
sanitizer_clean() {
    [ "$SANITIZE" != 1 ] || ! grep -Eq "$SANITIZER_REPORT" "$1"
}

# describe_status STATUS [LOG]: how a program ended, in words.
describe_status() {
    local s=$1
    if [ "$SANITIZE" = 1 ] && [ -n "${2:-}" ] && grep -Eq "$SANITIZER_REPORT" "$2"; then
        echo "sanitizer report, exit status $s"
    elif [ "$s" -eq 124 ]; then
        echo "timed out after ${TEST_TIMEOUT}s"
    elif [ "$s" -gt 128 ]; then
        echo "killed by signal $((s - 128))"
    else
        echo "exit status $s"
    fi
}

if ! PC_CFLAGS=$(pkg-config --cflags prefs 2>"$WORK/pc.log") || ! PC_LIBS=$(pkg-config --libs prefs 2>>"$WORK/pc.log") ||
   ! LIBDIR=$(pkg-config --variable=libdir prefs 2>>"$WORK/pc.log"); then
    fail "pkg-config prefs" "pkg-config finds no prefs.pc in ${PKG_CONFIG_PATH:-$PREFIX/lib}" "$WORK/pc.log"
    summary
    exit 1
fi
# Word splitting of the pkg-config output is intended, as in $(pkg-config ...).
# The rpath to the private libdir is what the README adds for a private
# prefix; the hardening flags are the user's CFLAGS and LDFLAGS.
# shellcheck disable=SC2206
PC=("${USER_CFLAGS[@]}" $PC_CFLAGS $PC_LIBS "-Wl,-rpath,$LIBDIR" "${USER_LDFLAGS[@]}")

STRICT_TEST=(-std=c99 -Wall -Wextra -Werror "${SAN[@]}")

# program_item NAME SOURCE: compile SOURCE as a user would, run it.
program_item() {
    local name=$1 src=$2
    local exe="$WORK/${name//\//_}"
    local log="$exe.log"
    if ! "$CC" "${STRICT_TEST[@]}" -pthread -o "$exe" "$src" "${PC[@]}" >"$log" 2>&1; then
        fail "$name" "does not compile: $CC ${STRICT_TEST[*]} $(basename "$src") \$(pkg-config --cflags --libs prefs) -Wl,-rpath,$LIBDIR" "$log"
        return 1
    fi
    # Runs in the work directory so that stray files land there.
    (cd "$WORK" && run_limited "$log" "$exe")
    local status=$?
    if [ "$status" -eq 0 ] && sanitizer_clean "$log"; then
        local summary
        summary=$(grep -E '^[^ ].*: [0-9]+ checks, [0-9]+ failed$' "$log" | tail -n 1 | sed 's/^.*: //')
        pass "$name" "$summary"
        show "$log"
    else
        fail "$name" "$(describe_status "$status" "$log")" "$log"
    fi
}

# GROUP=header|library|example|programs runs those items alone (Tests/lib.sh);
# TEST=NAME runs the one program Tests/C/test_NAME.c.
if [ -n "${TEST:-}" ]; then
    GROUP=programs
    if [ ! -f "$HERE/test_${TEST#test_}.c" ]; then
        echo "$0: no Tests/C/test_${TEST#test_}.c; the tests are:" $(cd "$HERE" && ls test_*.c | sed 's/^test_//; s/\.c$//') >&2
        exit 2
    fi
fi
run_groups "$0"

#@group header
# ------------------------------------------------------------------ #
# Header checks                                                       #
# ------------------------------------------------------------------ #

# header_item NAME COMPILER ARGS...: compile header_check.c, link, run.
header_item() {
    local name=$1 compiler=$2
    shift 2
    local exe="$WORK/${name//\//_}"
    local log="$exe.log"
    if [ "$SANITIZE" = 1 ]; then
        # The compiler under test compiles; clang links, with the runtimes.
        local linker=$CLANG
        case "$compiler" in *++*) linker=$CLANGXX ;; esac
        # shellcheck disable=SC2086
        if ! { "$compiler" "$@" -c -o "$exe.o" $PC_CFLAGS && "$linker" "${SAN[@]}" -o "$exe" "$exe.o" $PC_LIBS "-Wl,-rpath,$LIBDIR"; } >"$log" 2>&1; then
            fail "$name" "does not compile: $compiler $*, linked by $linker" "$log"
            return
        fi
    elif ! "$compiler" "$@" -o "$exe" "${PC[@]}" >"$log" 2>&1; then
        fail "$name" "does not compile: $compiler $*" "$log"
        return
    fi
    run_limited "$log" "$exe"
    local status=$?
    if [ "$status" -eq 0 ] && sanitizer_clean "$log"; then
        pass "$name" "$(head -n 1 "$log")"
        show "$log"
    else
        fail "$name" "$(describe_status "$status" "$log")" "$log"
    fi
}

STRICT_C=(-std=c99 -Wall -Wextra -pedantic -Werror)
STRICT_CXX=(-std=c++11 -Wall -Wextra -pedantic -Werror)

if command -v gcc >/dev/null 2>&1; then
    header_item header/gcc-c99 gcc "${STRICT_C[@]}" "$HERE/header_check.c"
else
    fail header/gcc-c99 "gcc not found"
fi
if command -v "$CLANG" >/dev/null 2>&1; then
    header_item header/clang-c99 "$CLANG" "${STRICT_C[@]}" "$HERE/header_check.c"
else
    printf 'SKIP  header/clang-c99  (no %s on PATH)\n' "$CLANG"
fi
if command -v "$CXX" >/dev/null 2>&1; then
    header_item header/g++-c++11 "$CXX" "${STRICT_CXX[@]}" -x c++ "$HERE/header_check.c" -x none
else
    fail header/g++-c++11 "$CXX not found"
fi

#@group library
# ------------------------------------------------------------------ #
# The shared library                                                  #
# ------------------------------------------------------------------ #

LIB="$LIBDIR/libprefs.so.$MAJOR"

# Symbols the linker itself defines in every shared object.
is_linker_symbol() {
    case "$1" in
        _edata | _end | __bss_start | _init | _fini | __bss_start__ | __bss_end__ | _bss_end__ | __end__ | __data_start | _etext | __etext) return 0 ;;
        LIBPREFS_[0-9]*) return 0 ;; # a version node's own symbol (GNU ld makes one)
        *) return 1 ;;
    esac
}

if [ ! -e "$LIB" ]; then
    fail library/exports "$LIB does not exist"
    fail library/header-functions-exported "$LIB does not exist"
    fail library/soname "$LIB does not exist"
    fail library/no-swift-runtime "$LIB does not exist"
else
    # Exports: only Prefs* and kPrefs*, and the private symbols: the entry
    # point of bin/prefs (Sources/PrefsTool/EntryPoint.swift) and the
    # terminal escaping of prefs-ui (Sources/PrefsTool/TerminalEscape.swift),
    # which must carry their own version node.
    if nm -D --defined-only "$LIB" >"$WORK/nm.out" 2>"$WORK/nm.log"; then
        awk '{ print $NF }' "$WORK/nm.out" | sed 's/@.*//' | sort -u >"$WORK/exports"
        : >"$WORK/offenders"
        while IFS= read -r sym; do
            case "$sym" in
                Prefs* | kPrefs*) ;;
                prefs_tool_main | prefs_tool_escape)
                    grep -q " $sym@@LIBPREFS_PRIVATE\$" "$WORK/nm.out" ||
                        printf '%s\n' "$sym" >>"$WORK/offenders" ;;
                *) is_linker_symbol "$sym" || printf '%s\n' "$sym" >>"$WORK/offenders" ;;
            esac
        done <"$WORK/exports"
        count=$(grep -c . "$WORK/exports")
        if [ -s "$WORK/offenders" ]; then
            # Show each offender as nm does (a lower-case type letter means
            # a LOCAL binding: listed by nm -D, though not linkable).
            awk 'NR == FNR { bad[$0] = 1; next } { name = $NF; sub(/@.*/, "", name); if (name in bad) print "type " $(NF-1) "  " name }' \
                "$WORK/offenders" "$WORK/nm.out" >"$WORK/offenders.shown"
            fail library/exports "$(grep -c . "$WORK/offenders") of $count symbols listed by nm -D are not Prefs*/kPrefs* (nor prefs_tool_main or prefs_tool_escape @@LIBPREFS_PRIVATE)" "$WORK/offenders.shown"
        else
            pass library/exports "$count symbols, all Prefs*/kPrefs* but prefs_tool_main and prefs_tool_escape @@LIBPREFS_PRIVATE"
        fi

        # Every function Prefs.h declares is exported.
        awk '/^PREFS_EXPORT/ { if (match($0, /Prefs[A-Za-z0-9_]*\(/)) print substr($0, RSTART, RLENGTH - 1) }' \
            "$PREFIX/include/prefs/Prefs.h" | sort -u >"$WORK/declared"
        comm -23 "$WORK/declared" "$WORK/exports" >"$WORK/missing"
        ndeclared=$(grep -c . "$WORK/declared")
        if [ "$ndeclared" -eq 0 ]; then
            fail library/header-functions-exported "found no PREFS_EXPORT declarations in the installed Prefs.h"
        elif [ -s "$WORK/missing" ]; then
            fail library/header-functions-exported "$(grep -c . "$WORK/missing") of $ndeclared declared functions are not exported" "$WORK/missing"
        else
            pass library/header-functions-exported "all $ndeclared functions of Prefs.h"
        fi
    else
        fail library/exports "nm -D failed" "$WORK/nm.log"
        fail library/header-functions-exported "nm -D failed"
    fi

    readelf -d "$LIB" >"$WORK/dynamic" 2>&1
    soname=$(sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p' "$WORK/dynamic")
    if [ "$soname" = "libprefs.so.$MAJOR" ]; then
        pass library/soname "$soname"
    else
        fail library/soname "SONAME is '${soname:-none}', expected libprefs.so.$MAJOR (VERSION $VERSION)" "$WORK/dynamic"
    fi

    if grep -Eq '\((RUNPATH|RPATH)\)' "$WORK/dynamic"; then
        fail library/no-rpath "the library carries $(grep -E '\((RUNPATH|RPATH)\)' "$WORK/dynamic" | sed 's/.*(\(.*\)).*\[\(.*\)\]/\1 \2/')"
    else
        pass library/no-rpath "no RUNPATH or RPATH"
    fi

    sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' "$WORK/dynamic" >"$WORK/needed"
    grep -E '^libswift|Foundation|^libdispatch|^libBlocksRuntime' "$WORK/needed" >"$WORK/swift-needed"
    if [ ! -s "$WORK/needed" ]; then
        fail library/no-swift-runtime "readelf -d shows no NEEDED entries" "$WORK/dynamic"
    elif [ -s "$WORK/swift-needed" ]; then
        fail library/no-swift-runtime "needs $(tr '\n' ' ' <"$WORK/swift-needed")" "$WORK/needed"
    else
        pass library/no-swift-runtime "needs only: $(tr '\n' ' ' <"$WORK/needed" | sed 's/ $//')"
    fi
    # libxml2 is loaded when XML is first parsed and libstdc++ is linked in,
    # so that a program's start binds neither (BENCHMARKS.md).
    if grep -E '^libxml2|^libstdc\+\+|^libicu' "$WORK/needed" >"$WORK/heavy-needed"; then
        fail library/lean-start "needs $(tr '\n' ' ' <"$WORK/heavy-needed")" "$WORK/needed"
    else
        pass library/lean-start "needs no libxml2, ICU or libstdc++ at start"
    fi

    # dlopen, use, dlclose, live on: the library must stay loaded under its threads.
    if grep -q 'Flags:.*NODELETE' "$WORK/dynamic"; then
        exe="$WORK/dlclose_check"
        if ! "$CC" "${USER_CFLAGS[@]}" -std=c99 -Wall -Wextra -Werror "${SAN[@]}" -o "$exe" "$HERE/dlclose_check.c" $PC_CFLAGS -ldl "${USER_LDFLAGS[@]}" >"$exe.log" 2>&1; then
            fail library/dlclose "dlclose_check.c does not compile" "$exe.log"
        elif (mkdir -p "$WORK/dlclose/config" && cd "$WORK" &&
              XDG_CONFIG_HOME="$WORK/dlclose/config" XDG_CACHE_HOME="$WORK/dlclose/cache" PREFS_SYSTEM_DIR="$WORK/dlclose/system" \
              PREFS_MANAGED_DIR="$WORK/dlclose/managed" run_limited "$exe.log" "$exe" "$LIB") &&
           sanitizer_clean "$exe.log"; then
            pass library/dlclose "NODELETE; used, closed, and its threads ran on"
        else
            fail library/dlclose "$(describe_status $? "$exe.log")" "$exe.log"
        fi
    else
        fail library/dlclose "the library is not marked NODELETE (link with -z nodelete)" "$WORK/dynamic"
    fi
fi

# The files make install promises (names from VERSION).
layout_problems=""
L=${LIBDIR#"$PREFIX"/}
for f in "$L/libprefs.so.$VERSION" include/prefs/Prefs.h include/prefs/module.modulemap include/prefs/CPrefs.apinotes "$L/pkgconfig/prefs.pc"; do
    [ -f "$PREFIX/$f" ] || layout_problems="$layout_problems $f missing;"
done
[ "$(readlink "$LIBDIR/libprefs.so.$MAJOR" 2>/dev/null)" = "libprefs.so.$VERSION" ] ||
    layout_problems="$layout_problems $L/libprefs.so.$MAJOR is not a symlink to libprefs.so.$VERSION;"
case "$(readlink "$LIBDIR/libprefs.so" 2>/dev/null)" in
    "libprefs.so.$MAJOR" | "libprefs.so.$VERSION") ;;
    *) layout_problems="$layout_problems $L/libprefs.so is not a symlink to libprefs.so.$MAJOR;" ;;
esac
if [ -z "$layout_problems" ]; then
    pass library/install-layout "$L/libprefs.so -> .so.$MAJOR -> .so.$VERSION, include/prefs, $L/pkgconfig"
else
    fail library/install-layout "${layout_problems# }"
fi

# ------------------------------------------------------------------ #
# The example and the test programs                                   #
# ------------------------------------------------------------------ #

#@group example
if [ -f "$ROOT/examples/xml_demo.c" ]; then
    exe="$WORK/example_xml_demo"
    if ! "$CC" "${STRICT_TEST[@]}" -o "$exe" "$ROOT/examples/xml_demo.c" "${PC[@]}" >"$exe.log" 2>&1; then
        fail example/xml_demo "does not compile" "$exe.log"
    else
        (cd "$WORK" && run_limited "$exe.out" sh -c '"$1" 2>"$1.log"' sh "$exe")
        status=$?
        if [ "$status" -ne 0 ] || ! sanitizer_clean "$exe.log"; then
            cat "$exe.out" >>"$exe.log"
            fail example/xml_demo "$(describe_status "$status" "$exe.log")" "$exe.log"
        elif ! head -c 5 "$exe.out" | grep -q '^<?xml'; then
            cat "$exe.out" >>"$exe.log"
            fail example/xml_demo "its standard output is not an XML document" "$exe.log"
        else
            pass example/xml_demo "$(tail -n 1 "$exe.log")"
            show "$exe.out"
        fi
    fi
else
    fail example/xml_demo "examples/xml_demo.c is missing"
fi

# The README's Swift route through the module map: examples/cprefs.swift
# compiles with no pointer casts and runs with no environment variables
# (only HOME and XDG_CONFIG_HOME, pointed into the work directory). Not
# under SANITIZE=1, where the library needs the sanitizer runtimes.
SWIFTC=${SWIFTC:-$(command -v swiftc)}
if [ "${SANITIZE:-0}" = 1 ]; then
    pass example/cprefs.swift "not built against a sanitizer build of the library"
elif [ -z "$SWIFTC" ]; then
    fail example/cprefs.swift "swiftc not found (set SWIFTC)"
else
    exe="$WORK/example_cprefs_swift"
    # Word splitting of the pkg-config output is intended.
    # shellcheck disable=SC2046
    if ! "$SWIFTC" -I "$(pkg-config --variable=includedir prefs)/prefs" $(pkg-config --libs prefs) \
        -Xlinker -rpath -Xlinker "$(pkg-config --variable=libdir prefs)" \
        "$ROOT/examples/cprefs.swift" -o "$exe" >"$exe.log" 2>&1; then
        fail example/cprefs.swift "does not compile as the README says" "$exe.log"
    else
        mkdir -p "$WORK/cprefs-home"
        (cd "$WORK" && run_limited "$exe.out" env -i HOME="$WORK/cprefs-home" XDG_CONFIG_HOME="$WORK/cprefs-home/config" "$exe")
        status=$?
        if [ "$status" -eq 0 ] && grep -q '^FontSize = 14$' "$exe.out"; then
            pass example/cprefs.swift "$(head -n 1 "$exe.out")"
        else
            cat "$exe.out" >>"$exe.log"
            fail example/cprefs.swift "$(describe_status "$status" "$exe.log")" "$exe.log"
        fi
    fi
fi

#@group programs
shopt -s nullglob
if [ -n "${TEST:-}" ]; then
    tests=("$HERE/test_${TEST#test_}.c")
else
    tests=("$HERE"/test_*.c)
fi
if [ ${#tests[@]} -eq 0 ]; then
    fail "test programs" "no Tests/C/test_*.c found"
fi
for src in "${tests[@]}"; do
    program_item "$(basename "$src" .c)" "$src"
done

#@end
summary
