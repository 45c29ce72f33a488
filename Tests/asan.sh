#!/usr/bin/env bash
#
# asan.sh — every Swift test (Tests/PrefsCoreTests) under AddressSanitizer,
# with LeakSanitizer on.
#
#   bash Tests/asan.sh
#
# Builds the package and its tests with --sanitize=address in a build
# directory of its own (.build/asan, so the normal debug build is left
# alone; one line per module as it builds), runs every suite (the child processes some tests start run under
# the sanitizers too), and exits non-zero when a test fails or
# AddressSanitizer or LeakSanitizer reports anything. Leaks in code that is
# not ours are suppressed by Tests/lsan.supp, each with its reason.
#
# Environment: SWIFT (default: swift); ASAN_OPTIONS and LSAN_OPTIONS are
# added after this script's own settings (later settings win).

set -u
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
SCRATCH=.build/asan
LOG=$(mktemp "${TMPDIR:-/tmp}/prefs-asan.XXXXXX")
trap 'rm -f "$LOG"' EXIT

echo "asan: building with --sanitize=address in $SCRATCH"
"$SWIFT" build --build-tests --traits Configuration --sanitize=address --scratch-path "$SCRATCH" 2>&1 |
    tee "$LOG" | awk -v tag=asan -f Tests/build-progress.awk
if [ "${PIPESTATUS[0]}" -ne 0 ]; then
    tail -n 60 "$LOG"
    echo "asan: FAIL (the build failed)"
    exit 1
fi

echo "asan: running every Swift test"
# The tests are Swift Testing only: --disable-xctest skips an empty XCTest
# pass (and its "Executed 0 tests" lines).
ASAN_OPTIONS="detect_leaks=1:halt_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
LSAN_OPTIONS="suppressions=$PWD/Tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
    "$SWIFT" test --skip-build --traits Configuration --sanitize=address --scratch-path "$SCRATCH" --disable-xctest >"$LOG" 2>&1
status=$?

reports=$(grep -cE 'ERROR: (AddressSanitizer|LeakSanitizer)' "$LOG")
summary=$(grep -E 'Test run with [0-9]+ test' "$LOG" | tail -n 1 | sed 's/^[^A-Za-z]*//')

if [ "$reports" -ne 0 ]; then
    # Each report, in full (a child process's comes inside its test's issue).
    awk '/ERROR: (AddressSanitizer|LeakSanitizer)/ { p = 1 } p { print } /SUMMARY: AddressSanitizer/ { p = 0; print "" }' "$LOG" | head -n 400
    grep -E '^✘' "$LOG" | head -n 20
    echo "asan: FAIL ($reports AddressSanitizer/LeakSanitizer report(s))"
    exit 1
fi
if [ "$status" -ne 0 ] || [ -z "$summary" ]; then
    tail -n 60 "$LOG"
    echo "asan: FAIL (exit status $status${summary:+; $summary})"
    exit 1
fi
echo "asan: PASS (no AddressSanitizer or LeakSanitizer reports; $summary)"
