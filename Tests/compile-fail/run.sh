#!/bin/sh
# Programs that must NOT build, and what the compiler must say about them.
#   Tests/compile-fail/run.sh        (make test-compile-fail; part of make check)
# Each directory here is a small package over this repository. In its
# sources, a comment `// expect: <text>` names the error the compiler must
# report on the line after it; the build must fail, report every expected
# error at its line, and never "fail to produce a diagnostic".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    PATH=/opt/swift/usr/bin:$PATH
fi
failures=0
for package in "$here"/*/; do
    name=$(basename "$package")
    log=$(mktemp /tmp/prefs-compile-fail.XXXXXX)
    if swift build --package-path "$package" --scratch-path "$root/.build/compile-fail/$name" >"$log" 2>&1; then
        echo "FAIL $name: it built, and must not"
        failures=$((failures + 1))
        rm -f "$log"
        continue
    fi
    if grep -q 'failed to produce diagnostic' "$log"; then
        echo "FAIL $name: the compiler failed to produce a diagnostic:"
        grep 'failed to produce diagnostic' "$log" | sort -u
        failures=$((failures + 1))
    fi
    expected=0
    for source in $(find "$package/Sources" -name '*.swift'); do
        # "line<TAB>text" for every expect comment: the line after it.
        grep -n '// expect: ' "$source" | sed -e 's/^\([0-9]*\):.*\/\/ expect: /\1\t/' >"$log.expect" || true
        while IFS="$(printf '\t')" read -r line text; do
            expected=$((expected + 1))
            at=$((line + 1))
            if ! grep -F "$(basename "$source"):$at:" "$log" | grep -F "error: $text" >/dev/null; then
                echo "FAIL $name: no \"$text\" at $(basename "$source"):$at; the compiler said:"
                grep -F "$(basename "$source"):$at:" "$log" | sort -u || echo "    (nothing at that line)"
                failures=$((failures + 1))
            fi
        done <"$log.expect"
        rm -f "$log.expect"
    done
    if [ "$failures" -gt 0 ]; then
        echo "    the build's last lines:"
        tail -n 15 "$log" | sed 's/^/    | /'
    fi
    if [ "$expected" -eq 0 ]; then
        echo "FAIL $name: no // expect: comment"
        failures=$((failures + 1))
    fi
    [ "$failures" -eq 0 ] && echo "ok   $name: does not build; $expected expected errors reported"
    rm -f "$log"
done
[ "$failures" -eq 0 ] || { echo "compile-fail: $failures failure(s)"; exit 1; }
