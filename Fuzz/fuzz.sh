#!/usr/bin/env bash
#
# fuzz.sh — builds and runs the fuzz targets (see FUZZING.md).
#
#   fuzz.sh build fuzz|replay   build every target into .build/fuzz/<mode>/:
#                               "fuzz" with libFuzzer and AddressSanitizer,
#                               "replay" with AddressSanitizer and the
#                               standalone driver Fuzz/replay.c (C, with
#                               UBSan too; swiftc has no UBSan for Swift)
#   fuzz.sh replay              run every seed and corpus file through its
#                               target once (the replay build); fails on a
#                               crash, a leak, an input over 1 s or 500 MB
#   fuzz.sh merge [T..]         minimize the corpus of each target (all, or
#                               those named) as fuzz does after a run
#   fuzz.sh fuzz SECONDS [T..]  fuzz each target (all, or those named) for
#                               SECONDS (or FUZZ_RUNS executions, whichever
#                               comes first), then merge what is new into
#                               its corpus, keeping the corpus minimal
#
# Inputs: Fuzz/seeds/<target>/ holds hand-written seeds and inputs that once
# crashed (named for what they show; never rewritten); Fuzz/corpus/<target>/
# holds what fuzzing found beyond them (named by content, rewritten by each
# `fuzz.sh fuzz`).
#
# Environment: SWIFTC and CLANG name the compilers (default: those on PATH).

set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SWIFTC=${SWIFTC:-swiftc}
# The toolchain's clang (beside swiftc) has the same sanitizer runtimes.
TOOLCHAIN_CLANG="$(dirname "$(command -v "$SWIFTC" || echo .)")/clang"
if [ -x "$TOOLCHAIN_CLANG" ]; then CLANG=${CLANG:-$TOOLCHAIN_CLANG}; else CLANG=${CLANG:-clang}; fi
TARGETS=(xml_reader binary_reader old_style_reader create_with_data c_strings round_trip coercions argument_domain value_grammar settings_schema domain_index sync_file)
CORPUS=Fuzz/corpus
SEEDS=Fuzz/seeds

# A trap must end the process at once, not wait in Swift's backtracer.
export SWIFT_BACKTRACE=enable=no

# Extra sources a target is compiled with.
extra_sources() {
    case $1 in
    value_grammar) echo Sources/PrefsTool/ValueGrammar.swift Sources/PrefsTool/Output.swift ;;
    settings_schema) echo Sources/PrefsTool/SchemaCode.swift ;;
    esac
}

# stale OUTPUT INPUT...: true when OUTPUT is missing or older than an input.
stale() {
    local out=$1
    shift
    [ ! -e "$out" ] || [ -n "$(find "$@" -newer "$out" -print -quit)" ]
}

build() {
    local mode=$1 out=".build/fuzz/$1" sanitize
    case $mode in
    fuzz) sanitize=-sanitize=fuzzer,address ;;
    replay) sanitize=-sanitize=address ;;
    *) echo "fuzz.sh: build fuzz|replay" >&2; exit 2 ;;
    esac
    mkdir -p "$out"
    local xcc=() flag
    for flag in $(pkg-config --cflags libxml-2.0); do xcc+=(-Xcc "$flag"); done
    # One package name for every module, as SwiftPM gives: the command's
    # sources use the core's package declarations.
    local common=(-O -g "$sanitize" -package-name libprefs -I Sources/CLibXML2/include -I Sources/CSystemShims
        -I Sources/CProcessHooks/include -I include/prefs -I "$out" "${xcc[@]}")
    local core_sources
    core_sources=$(find Sources/PrefsCore -name '*.swift' | sort)

    # The core (with @testable access) and the C face, as static libraries.
    # The load-time fork handlers and the state they guard, in C.
    if stale "$out/process_hooks.o" Sources/CProcessHooks; then
        "$CLANG" -std=c99 -O1 -g -fsanitize=address -I Sources/CProcessHooks/include \
            -c Sources/CProcessHooks/process_hooks.c -o "$out/process_hooks.o"
    fi
    # The XML reader's scan of a whole document, in C.
    if stale "$out/xml_scan.o" Sources/CLibXML2; then
        "$CLANG" -std=c99 -O1 -g -fsanitize=address -I Sources/CLibXML2/include \
            -c Sources/CLibXML2/types.c -o "$out/xml_scan.o"
    fi
    if stale "$out/libPrefsCore.a" Sources/PrefsCore Sources/CLibXML2 Sources/CSystemShims Sources/CProcessHooks Fuzz/fuzz.sh; then
        echo "fuzz: building PrefsCore ($mode)"
        # shellcheck disable=SC2086
        "$SWIFTC" -parse-as-library -module-name PrefsCore -enable-testing -emit-library -static \
            -emit-module -emit-module-path "$out/PrefsCore.swiftmodule" -o "$out/libPrefsCore.a" \
            "${common[@]}" $core_sources
    fi
    if stale "$out/libPrefs.a" Sources/Prefs include/prefs "$out/libPrefsCore.a"; then
        echo "fuzz: building the C face ($mode)"
        "$SWIFTC" -parse-as-library -module-name Prefs -emit-library -static \
            -emit-module -emit-module-path "$out/Prefs.swiftmodule" -o "$out/libPrefs.a" \
            "${common[@]}" Sources/Prefs/*.swift
    fi
    local driver=()
    if [ "$mode" = replay ]; then
        if stale "$out/replay.o" Fuzz/replay.c; then
            "$CLANG" -std=c99 -O1 -g -Wall -Wextra -fsanitize=address,undefined -c Fuzz/replay.c -o "$out/replay.o"
        fi
        driver=("$out/replay.o")
    fi
    local t
    for t in "${TARGETS[@]}"; do
        # shellcheck disable=SC2046
        if stale "$out/$t" Fuzz/Targets "$out/libPrefs.a" "$out/libPrefsCore.a" $(extra_sources "$t"); then
            echo "fuzz: building $t ($mode)"
            # shellcheck disable=SC2046
            "$SWIFTC" -parse-as-library -module-name "fuzz_$t" "${common[@]}" -use-ld=lld \
                "Fuzz/Targets/$t.swift" Fuzz/Targets/Support.swift $(extra_sources "$t") "${driver[@]}" "$out/process_hooks.o" "$out/xml_scan.o" \
                -L "$out" -lPrefs -lPrefsCore -lxml2 -o "$out/$t"
        fi
    done
}

replay() {
    local t failed=0 passes=0 failures=0
    for t in "${TARGETS[@]}"; do
        # A new target has seeds before fuzzing has given it a corpus.
        local inputs=("$SEEDS/$t")
        [ -d "$CORPUS/$t" ] && inputs+=("$CORPUS/$t")
        if ASAN_OPTIONS=detect_leaks=1:handle_sigill=1:hard_rss_limit_mb=500:quarantine_size_mb=16 \
            ".build/fuzz/replay/$t" "${inputs[@]}" >".build/fuzz/replay/$t.log" 2>&1; then
            echo "PASS  fuzz-replay/$t  ($(tail -n 1 ".build/fuzz/replay/$t.log"))"
            passes=$((passes + 1))
        else
            failures=$((failures + 1))
            echo "FAIL  fuzz-replay/$t"
            tail -n 40 ".build/fuzz/replay/$t.log" | sed 's/^/      | /'
            failed=1
        fi
    done
    echo "$passes passed, $failures failed"
    return $failed
}

# fuzz_one SECONDS TARGET: fuzz, then merge into a fresh minimal corpus.
fuzz_one() {
    local seconds=$1 t=$2 work=".build/fuzz/work/$2"
    rm -rf "$work"
    mkdir -p "$work/new" "$CORPUS/$t"
    echo "fuzz: $t for $seconds s${FUZZ_RUNS:+ or $FUZZ_RUNS runs}"
    ASAN_OPTIONS=quarantine_size_mb=64 ".build/fuzz/fuzz/$t" -max_total_time="$seconds" -runs="${FUZZ_RUNS:--1}" \
        -rss_limit_mb=500 -timeout=1 -print_final_stats=1 \
        -artifact_prefix="$work/" "$work/new" "$CORPUS/$t" "$SEEDS/$t" >"$work/fuzz.log" 2>&1 || {
        echo "fuzz: $t failed; see $work/fuzz.log and the crash-*, leak-*, timeout-* files there"
        return 1
    }
    echo "fuzz: $t: $(grep -E '^#[0-9]+[[:space:]]+DONE' "$work/fuzz.log" | tail -n 1)"
    echo "fuzz: $t: $(grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$work/fuzz.log" | tr '\n' ' ')"
    merge_one "$t" "$work/new"
}

# merge_one TARGET [DIR...]: replaces the corpus with one input per edge
# that the seeds do not reach (not per hit count), from the corpus and the
# DIRs: a few hundred small files that reach everything they reached.
merge_one() {
    local t=$1 merged=".build/fuzz/work/$1/merged" seed
    shift
    rm -rf "$merged"
    mkdir -p "$merged" "$CORPUS/$t"
    cp "$SEEDS/$t"/* "$merged"/
    ".build/fuzz/fuzz/$t" -merge=1 -use_counters=0 -rss_limit_mb=500 -timeout=1 \
        "$merged" "$CORPUS/$t" "$@" >"$merged.log" 2>&1
    for seed in "$SEEDS/$t"/*; do rm -f "$merged/$(basename "$seed")"; done
    rm -f "$CORPUS/$t"/*
    cp "$merged"/* "$CORPUS/$t"/ 2>/dev/null || true
    echo "fuzz: $t: corpus $(find "$CORPUS/$t" -type f | wc -l) files, $(cat "$CORPUS/$t"/* | wc -c) bytes"
}

case ${1:-} in
build) build "${2:-}" ;;
replay) replay ;;
merge)
    shift
    if [ $# -gt 0 ]; then TARGETS=("$@"); fi
    for t in "${TARGETS[@]}"; do merge_one "$t"; done
    ;;
fuzz)
    seconds=${2:?fuzz.sh fuzz SECONDS [TARGET...]}
    shift 2
    if [ $# -gt 0 ]; then TARGETS=("$@"); fi
    status=0
    for t in "${TARGETS[@]}"; do fuzz_one "$seconds" "$t" || status=1; done
    exit $status
    ;;
*) sed -n '3,20p' "$0" >&2; exit 2 ;;
esac
