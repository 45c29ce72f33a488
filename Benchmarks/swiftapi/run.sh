#!/bin/sh
# Reads through libprefs' Swift API against UserDefaults, in one process.
#   Benchmarks/swiftapi/run.sh     (ROUNDS=n for more or fewer rounds)
# Both read from a private, empty configuration directory.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    PATH=/opt/swift/usr/bin:$PATH
fi
swift build -c release --scratch-path "$here/../../.build/swiftapi-bench" >&2
dir=$(mktemp -d /tmp/prefs-swiftapi-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
HOME=$dir XDG_CONFIG_HOME=$dir/config "$here/../../.build/swiftapi-bench/release/swiftapi-bench"
