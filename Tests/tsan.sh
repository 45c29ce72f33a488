#!/usr/bin/env bash
#
# tsan.sh — the thread-safety stress test (Tests/PrefsCoreTests/StressTests.swift)
# under ThreadSanitizer: eight threads hammering one store with sets, reads,
# synchronizes, registrations and suites.
#
#   bash Tests/tsan.sh
#
# Builds the package and its tests with --sanitize=thread in a build
# directory of its own (.build/tsan, so the normal debug build is left
# alone; one line per module as it builds), runs the stress suite, and
# exits non-zero when the suite fails or ThreadSanitizer reports anything.
#
# Environment: SWIFT (default: swift), PREFS_STRESS_ITERATIONS (rounds per
# thread, default 300 in the test).

set -u
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
SCRATCH=.build/tsan
LOG=$(mktemp "${TMPDIR:-/tmp}/prefs-tsan.XXXXXX")
trap 'rm -f "$LOG"' EXIT

echo "tsan: building with --sanitize=thread in $SCRATCH"
"$SWIFT" build --build-tests --sanitize=thread --scratch-path "$SCRATCH" 2>&1 |
    tee "$LOG" | awk -v tag=tsan -f Tests/build-progress.awk
if [ "${PIPESTATUS[0]}" -ne 0 ]; then
    tail -n 60 "$LOG"
    echo "tsan: FAIL (the build failed)"
    exit 1
fi

echo "tsan: running the stress suite"
# halt_on_error=0: report every race, not just the first; the exit status
# of a process with reports is 66. The tests are Swift Testing only:
# --disable-xctest skips an empty XCTest pass.
TSAN_OPTIONS="halt_on_error=0 exitcode=66 ${TSAN_OPTIONS:-}" \
    "$SWIFT" test --skip-build --sanitize=thread --scratch-path "$SCRATCH" --disable-xctest --filter StressTests >"$LOG" 2>&1
status=$?

reports=$(grep -c 'WARNING: ThreadSanitizer' "$LOG")
summary=$(grep -E 'Test run with [0-9]+ test' "$LOG" | tail -n 1 | sed 's/^[^A-Za-z]*//')
ran=$(grep -c 'eightThreadsOnOneStore() passed\|eightThreadsOnOneStore() failed' "$LOG")

if [ "$reports" -ne 0 ]; then
    # Each report, in full.
    awk '/WARNING: ThreadSanitizer/ { p = 1 } p { print } /^SUMMARY: ThreadSanitizer/ { p = 0; print "" }' "$LOG" | head -n 400
    echo "tsan: FAIL ($reports ThreadSanitizer report(s))"
    exit 1
fi
if [ "$status" -ne 0 ] || [ "$ran" -eq 0 ]; then
    tail -n 60 "$LOG"
    echo "tsan: FAIL (exit status $status${summary:+; $summary})"
    exit 1
fi
echo "tsan: PASS (no ThreadSanitizer reports; $summary)"
