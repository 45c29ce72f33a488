#!/usr/bin/env bash
#
# run.sh <prefix> — a real client: Ansible's community.general.osx_defaults
# module drives <prefix>/libexec/prefs/defaults (from `make install
# PREFIX=<prefix>`), as on a Mac, on localhost (connection: local).
#
# Ansible comes from PyPI, pinned (ANSIBLE_VERSION; the `ansible` package
# bundles community.general, so Galaxy is never asked), into a virtual
# environment cached outside the tree, keyed by the version:
# ${XDG_CACHE_HOME:-~/.cache}/libprefs/ansible-<version> (made once; a
# half-made one is made again).
#
# The checks, one line each, then "N passed, N failed":
#   1. on an empty domain holding only Obsolete, the playbook writes an
#      integer, a string, a boolean, an array, a date and a float and
#      deletes Obsolete (7 changes), reading each back through the module;
#   2. after the values drift (set otherwise with `defaults write`, and
#      Obsolete back), the same playbook changes each back (7 changes);
#   3. tests/ansible/check.c, built with pkg-config against <prefix>, finds
#      every value through the C API with its type, and Obsolete gone;
#   4. a second run in a row reports changed=0 (idempotent: `defaults read`
#      prints what the module parses, as macOS's does).
#
# The run uses TZ=UTC: the module writes a date as local time and compares
# it with the time `defaults read` prints, which is UTC ("+0000"), as on a
# Mac; so, there as here, a date task is idempotent only where local time
# is UTC (doc/fleet.md).

set -u

if [ $# -ne 1 ] || [ ! -x "$1/bin/prefs" ]; then
    echo "usage: $0 <prefix> (with <prefix>/bin/prefs installed)" >&2
    exit 2
fi
PREFIX=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
ANSIBLE_VERSION=${ANSIBLE_VERSION:-12.3.0}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/libprefs
VENV=$CACHE/ansible-$ANSIBLE_VERSION
CC=${CC:-cc}
DOMAIN=com.example.ansible
LIBEXEC=$PREFIX/libexec/prefs

. "$HERE/../lib.sh"
finish() {
    summary
    exit
}

if [ ! -L "$LIBEXEC/defaults" ] && [ ! -x "$LIBEXEC/defaults" ]; then
    fail install "$LIBEXEC/defaults is missing"
    finish
fi

# The virtual environment, made once per version.
if [ ! -e "$VENV/.complete" ]; then
    echo "installing ansible==$ANSIBLE_VERSION into $VENV"
    rm -rf "$VENV"
    mkdir -p "$CACHE"
    if python3 -m venv "$VENV" &&
        "$VENV/bin/pip" install --quiet --disable-pip-version-check "ansible==$ANSIBLE_VERSION"; then
        touch "$VENV/.complete"
    else
        rm -rf "$VENV"
        fail venv "cannot install ansible==$ANSIBLE_VERSION from PyPI"
        finish
    fi
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/prefs-ansible.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/config PREFS_SYSTEM_DIR=$WORK/system
export PREFS_MANAGED_DIR=$WORK/managed XDG_RUNTIME_DIR=$WORK/run
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
export TZ=UTC LC_ALL=C.UTF-8 LANG=C.UTF-8
export ANSIBLE_HOME=$WORK/ansible ANSIBLE_LOCAL_TEMP=$WORK/ansible/tmp ANSIBLE_NOCOLOR=1
export ANSIBLE_PYTHON_INTERPRETER=$VENV/bin/python ANSIBLE_STDOUT_CALLBACK=default
export PATH=$LIBEXEC:$PATH
unset LD_LIBRARY_PATH
DEFAULTS=$LIBEXEC/defaults

# play NAME WANT: runs the playbook; passes when it succeeds having changed
# WANT things (each changed loop item and task: "changed: [localhost]").
play() {
    "$VENV/bin/ansible-playbook" -i localhost, -c local \
        -e prefs_domain=$DOMAIN -e "prefs_libexec=$LIBEXEC" "$HERE/playbook.yml" >"$WORK/play.log" 2>&1
    local rc=$?
    local recap
    recap=$(grep -E '^localhost +:' "$WORK/play.log" | tr -s ' ')
    local changes
    changes=$(grep -c '^changed: \[localhost\]' "$WORK/play.log")
    if [ $rc -eq 0 ] && [ "$changes" -eq "$2" ] && echo "$recap" | grep -q "failed=0"; then
        pass "$1: $changes changes ($recap)"
    else
        fail "$1" "expected $2 changes, saw $changes; ansible-playbook exited $rc: $recap"
        sed 's/^/    /' "$WORK/play.log" | tail -n 40
    fi
}

"$DEFAULTS" write $DOMAIN Obsolete -string "left over"
play "write, read and delete: int, string, bool, array, date, float" 7

"$DEFAULTS" write $DOMAIN Count -int 7
"$DEFAULTS" write $DOMAIN Title -string "old title"
"$DEFAULTS" write $DOMAIN Enabled -bool FALSE
"$DEFAULTS" write $DOMAIN Servers -array alpha.example.org
"$DEFAULTS" write $DOMAIN Since -date "2025-01-01 00:00:00"
"$DEFAULTS" write $DOMAIN Ratio -float 0.5
"$DEFAULTS" write $DOMAIN Obsolete -string "back again"
play "change each drifted value back, delete again" 7

# Built against <prefix> with pkg-config, run without LD_LIBRARY_PATH.
PKG_CONFIG_PATH=$(for d in "$PREFIX"/lib/pkgconfig "$PREFIX"/lib/*/pkgconfig; do [ -d "$d" ] && printf '%s:' "$d"; done)
export PKG_CONFIG_PATH=${PKG_CONFIG_PATH%:}
# shellcheck disable=SC2046
if ! $CC -std=c99 -Wall -Wextra -Werror ${CFLAGS:-} -o "$WORK/check" "$HERE/check.c" \
    $(pkg-config --cflags --libs prefs) -Wl,-rpath,"$(pkg-config --variable=libdir prefs)" ${LDFLAGS:-} >"$WORK/cc.log" 2>&1; then
    fail "C API check" "does not compile: $(head -c 300 "$WORK/cc.log")"
elif out=$("$WORK/check" $DOMAIN); then
    pass "C API: $out"
else
    fail "C API" "$out"
fi

play "a second run in a row changes nothing" 0

finish
