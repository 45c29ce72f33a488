#!/bin/sh
# Codec benchmarks: builds the benchmark package in release mode and prints
# Markdown tables (parse and write times, ratios, growth, peak memory).
#
#   Benchmarks/run.sh            the full run (a few minutes)
#   Benchmarks/run.sh --quick    fewer repetitions
#
# PREFS_ROOT=/path/to/checkout measures another copy of the library.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

# What the contenders need.
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists libplist-2.0 libxml-2.0; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "run.sh: needs libplist-dev, libxml2-dev and pkg-config (run as root to install them)" >&2
        exit 1
    fi
    echo "run.sh: installing libplist-dev libxml2-dev pkg-config" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libplist-dev libxml2-dev pkg-config >&2
fi

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    PATH=/opt/swift/usr/bin:$PATH
fi

echo "run.sh: building (release)" >&2
swift build -c release >&2
bin=$(swift build -c release --show-bin-path)/codec-bench

root=${PREFS_ROOT:-..}
case $root in /*) ;; *) root=$here/$root ;; esac
root=$(cd "$root" && pwd)
if commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null); then
    if [ -n "$(git -C "$root" status --porcelain -- Sources 2>/dev/null)" ]; then
        commit="$commit, with uncommitted changes under Sources"
    fi
else
    commit="not a git checkout"
fi

echo "### Machine"
echo
echo "- CPU: $(nproc) cores available, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "- Memory: $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
echo "- System: $(. /etc/os-release && echo "$PRETTY_NAME"), Linux $(uname -r)"
echo "- $(swift --version 2>/dev/null | head -n 1)"
echo "- libxml2 $(pkg-config --modversion libxml-2.0), libplist $(pkg-config --modversion libplist-2.0)"
echo "- Library measured: $root ($commit)"
echo "- Load average at start: $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo

"$bin" "$@"

echo
echo "- Load average at end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
