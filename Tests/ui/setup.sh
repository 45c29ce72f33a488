# setup.sh NAME — what both scripts of `prefs ui` tests do first: check the
# argument (<prefix>, with <prefix>/bin/prefs) and tmux; make the work
# directory $WORK (prefs-NAME.XXXXXX, removed at exit, with the tmux server)
# holding the home, configuration and runtime directories of a user of its
# own; define T (tmux on that server), screen, and the on_fail that shows
# the screen under a failed check; and source Tests/lib.sh. Sourced, not
# run, with the script's own arguments after NAME.

if [ $# -ne 2 ] || [ ! -x "$2/bin/prefs" ]; then
    echo "usage: $0 <prefix> (with <prefix>/bin/prefs installed)" >&2
    exit 2
fi
PREFIX=$(cd "$2" && pwd)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PREFS=$PREFIX/bin/prefs
if ! command -v tmux >/dev/null; then
    echo "$0: tmux is missing (make deps installs it)" >&2
    exit 2
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/prefs-$1.XXXXXX")
SOCKET=$WORK/tmux.sock
T() { tmux -S "$SOCKET" "$@"; }
cleanup() {
    T kill-server 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/config XDG_DATA_HOME=$WORK/data XDG_DATA_DIRS=$WORK/none
export PREFS_SYSTEM_DIR=$WORK/system PREFS_MANAGED_DIR=$WORK/managed XDG_RUNTIME_DIR=$WORK/runtime
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

. "$ROOT/Tests/lib.sh"
screen() { T capture-pane -p -t ui; }
on_fail() { screen | sed 's/^/    | /'; }
