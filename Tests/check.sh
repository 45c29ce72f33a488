#!/usr/bin/env bash
#
# check.sh <step>... — `make check`: runs each step (a make target) in turn,
# its whole output in build/check/<step>.log, and prints one line per step
# (PASS or FAIL, the checks its log reports passed, the time it took), then
# a summary. A failing step's last lines are shown under it; every step
# runs even after one fails. Exit status 0 when every step passed.
#
# MAKE names make (the Makefile passes its own); the steps run with
# STAGE_INSTALLED=1, so the stage prefix that the first step installs is
# not installed again by each test that uses it.

set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOGS=$ROOT/build/check
MAKE=${MAKE:-make}
rm -rf "$LOGS"
mkdir -p "$LOGS"

start=$SECONDS
passed=()
failed=()
checks=0
for step in "$@"; do
    log=$LOGS/$step.log
    t0=$SECONDS
    printf '%-18s ' "$step"
    if $MAKE --no-print-directory -C "$ROOT" "$step" STAGE_INSTALLED=1 >"$log" 2>&1; then
        verdict=PASS
        passed+=("$step")
    else
        verdict=FAIL
        failed+=("$step")
    fi
    # Test scripts print "PASS  name" per check (Tests/compile-fail "ok");
    # swift test prints "Test run with N tests ... passed"; pytest "N passed".
    n=$(grep -c -E '^(PASS|ok) ' "$log")
    st=$(sed -n 's/.*Test run with \([0-9][0-9]*\) tests\{0,1\} in .* passed.*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
    py=$(sed -n 's/^=* *\([0-9][0-9]*\) passed.* in [0-9.]*s.*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
    n=$((n + st + py))
    checks=$((checks + n))
    warnings=$(grep -c 'warning:' "$log")
    printf '%s  %4d checks  %4ds%s\n' "$verdict" "$n" $((SECONDS - t0)) "$([ "$warnings" -gt 0 ] && echo "  ($warnings warning lines)")"
    if [ $verdict = FAIL ]; then
        tail -n 15 "$log" | sed 's/^/    | /'
    fi
done

echo
echo "check: ${#passed[@]} of $# steps passed, $checks checks, $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s; logs in build/check/"
echo "steps: ${#passed[@]} passed, ${#failed[@]} failed"
if [ ${#failed[@]} -gt 0 ]; then
    echo "check: FAILED: ${failed[*]}"
    exit 1
fi
