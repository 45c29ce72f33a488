#!/usr/bin/env bash
#
# hardening.sh <prefix> — attacks on the installed `prefs` command
# (<prefix>/bin/prefs): what it writes must never damage what it touches.
#
# - output paths that are not regular files (a device node and a FIFO made
#   here with mknod, links such as one to /proc/self/fd/1): written through,
#   never replaced; as root, and as a second user through setpriv;
# - standard output that cannot be written (/dev/full, a closed descriptor,
#   a pipe whose reader has gone): an error and a non-zero status;
# - the terminal: every command fed keys, values, file names and
#   identifiers holding ESC, CR, a C1 CSI (U+009B) and a bidi override
#   (U+202E), run in a pseudo-terminal, and the bytes that reach it checked;
# - configuration profiles: `-user`, identifiers, atomic installation, and
#   files the profile did not make.
#
# Every check runs in a temporary directory with XDG_CONFIG_HOME,
# PREFS_SYSTEM_DIR and PREFS_MANAGED_DIR inside it; nothing of the system's
# is used (the device node is the test's own). Checks that need root (mknod,
# setpriv) are skipped, and said so, without it.
#
# One line per check, then "N passed, N failed, N skipped". Exit status 0
# when nothing failed.

set -u

if [ $# -ne 1 ] || [ ! -x "$1/bin/prefs" ]; then
    echo "usage: $0 <prefix> (with <prefix>/bin/prefs installed)" >&2
    exit 2
fi
PREFIX=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
PREFS=$PREFIX/bin/prefs
UI=$PREFIX/libexec/prefs/prefs-ui

WORK=$(mktemp -d "${TMPDIR:-/tmp}/prefs-hardening.XXXXXX")
chmod 0755 "$WORK"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT

export HOME=$WORK/home
export XDG_CONFIG_HOME=$WORK/config
export PREFS_SYSTEM_DIR=$WORK/system
export PREFS_MANAGED_DIR=$WORK/managed
unset LD_LIBRARY_PATH LANGUAGE LC_ALL LC_MESSAGES XDG_DATA_HOME XDG_DATA_DIRS
export LANG=C.UTF-8
mkdir -p "$HOME" "$WORK/files" "$WORK/out"
CFG=$XDG_CONFIG_HOME
MAN=$PREFS_MANAGED_DIR

. "$HERE/../lib.sh"
# p ARGS... — runs prefs; stdout in $WORK/stdout, stderr in $WORK/stderr, status in $rc.
p() {
    "$PREFS" "$@" >"$WORK/stdout" 2>"$WORK/stderr"
    rc=$?
}
quiet() {
    p "$@"
    if [ "$rc" != 0 ]; then fail "setup: prefs $*" "status $rc: $(head -c 200 "$WORK/stderr")"; fi
}
root=0
[ "$(id -u)" = 0 ] && root=1

quiet write com.example.h Greeting -string hello
quiet write com.example.h Count -int 3

# ---------------------------------------------------------------------------
# Output paths that are not regular files: export D PATH and convert -o PATH.
# A character device, a FIFO and links are written through; the node stays
# what it was.

D=$WORK/dev
mkdir -p "$D"
# kind PATH — what stat says PATH itself is.
kind() { stat -c %F "$1" 2>/dev/null; }

if [ "$root" = 1 ]; then
    # The test's own null device (1,3), in its own directory.
    mknod -m 0666 "$D/null" c 1 3
    for verb in export convert; do
        if [ $verb = export ]; then args=(export com.example.h "$D/null"); else
            "$PREFS" export com.example.h "$WORK/files/h.plist"
            args=(convert -convert binary1 -o "$D/null" "$WORK/files/h.plist")
        fi
        p "${args[@]}"
        if [ "$rc" = 0 ] && [ "$(kind "$D/null")" = "character special file" ] && [ "$(stat -c %a "$D/null")" = 666 ]; then
            pass "output/$verb to a device node: written through, still a device"
        else
            fail "output/$verb to a device node: written through, still a device" "status $rc, now $(kind "$D/null") $(stat -c %a "$D/null"); $(head -c 200 "$WORK/stderr")"
            rm -f "$D/null"
            mknod -m 0666 "$D/null" c 1 3
        fi
    done
    # A block device is refused, untouched (the test's own node, 7,0: loop0).
    mknod -m 0600 "$D/block" b 7 0
    p export com.example.h "$D/block"
    if [ "$rc" = 1 ] && [ "$(kind "$D/block")" = "block special file" ] && [ -s "$WORK/stderr" ]; then
        pass "output/export to a block device: refused, untouched"
    else
        fail "output/export to a block device: refused, untouched" "status $rc, now $(kind "$D/block")"
    fi
    # A second user writes to the test's device node through a link it owns.
    if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
        nobody=$(id -u nobody)
        mkdir -p "$WORK/other" && chown "$nobody" "$WORK/other" && chmod 0755 "$WORK"
        ln -s "$D/null" "$WORK/other/link"
        chown -h "$nobody" "$WORK/other/link"
        chown -R "$nobody" "$CFG"
        setpriv --reuid="$nobody" --regid="$(id -g nobody)" --clear-groups \
            "$PREFS" export com.example.h "$WORK/other/link" >"$WORK/stdout" 2>"$WORK/stderr"
        rc=$?
        if [ "$rc" = 0 ] && [ -L "$WORK/other/link" ] && [ "$(kind "$D/null")" = "character special file" ]; then
            pass "output/a second user's export through its link to a device: written through"
        else
            fail "output/a second user's export through its link to a device: written through" "status $rc; link: $(kind "$WORK/other/link"), node: $(kind "$D/null"); $(head -c 200 "$WORK/stderr")"
        fi
        chown -R 0 "$CFG"
        # Root exporting into a sticky, world-writable directory: another
        # user's file keeps its owner and mode (written through, as cp
        # does); a link another user planted there is not followed.
        mkdir -p "$WORK/sticky" && chmod 1777 "$WORK/sticky"
        setpriv --reuid="$nobody" --regid="$(id -g nobody)" --clear-groups \
            sh -c 'echo theirs >"$1/theirs.plist"; chmod 6777 "$1/theirs.plist"; ln -s "$2" "$1/planted.plist"' - \
            "$WORK/sticky" "$WORK/files/secret"
        printf 'secret\n' >"$WORK/files/secret" && chmod 600 "$WORK/files/secret"
        p export com.example.h "$WORK/sticky/theirs.plist"
        if [ "$rc" = 0 ] && [ "$(stat -c '%u %a' "$WORK/sticky/theirs.plist")" = "$nobody 6777" ] &&
            grep -q '<key>Greeting</key>' "$WORK/sticky/theirs.plist"; then
            pass "output/root exporting over another user's file: written, owner and mode kept"
        else
            fail "output/root exporting over another user's file: written, owner and mode kept" "status $rc, now $(stat -c '%U %a' "$WORK/sticky/theirs.plist")"
        fi
        p export com.example.h "$WORK/sticky/planted.plist"
        if [ "$rc" = 1 ] && [ "$(cat "$WORK/files/secret")" = secret ] && [ -L "$WORK/sticky/planted.plist" ]; then
            pass "output/a link another user planted: refused, its target untouched"
        else
            fail "output/a link another user planted: refused, its target untouched" "status $rc, target: $(head -c 80 "$WORK/files/secret")"
        fi
    else
        skip "output/a second user's export" "no setpriv or no user nobody"
    fi
else
    skip "output/device nodes" "not root (mknod)"
fi
# The caller's own file with a set-ID bit: replaced with its permission
# bits only, never a set-user-ID, set-group-ID or sticky bit.
printf 'old\n' >"$WORK/files/mine.plist" && chmod 6755 "$WORK/files/mine.plist"
p export com.example.h "$WORK/files/mine.plist"
if [ "$rc" = 0 ] && [ "$(stat -c %a "$WORK/files/mine.plist")" = 755 ]; then
    pass "output/export over the caller's set-ID file: permission bits only"
else
    fail "output/export over the caller's set-ID file: permission bits only" "status $rc, now $(stat -c %a "$WORK/files/mine.plist")"
fi

# A FIFO: written through to its reader; it stays a FIFO.
mkfifo "$D/fifo"
for verb in export convert; do
    cat "$D/fifo" >"$WORK/out/fifo.$verb" &
    reader=$!
    if [ $verb = export ]; then p export com.example.h "$D/fifo"; else
        p convert -convert xml1 -o "$D/fifo" "$WORK/files/h.plist"
    fi
    now=$(kind "$D/fifo")
    if [ "$now" != fifo ]; then
        kill "$reader" 2>/dev/null
        rm -f "$D/fifo"
        mkfifo "$D/fifo"
    fi
    wait "$reader" 2>/dev/null
    if [ "$rc" = 0 ] && [ "$now" = fifo ] && grep -q '<key>Greeting</key>' "$WORK/out/fifo.$verb"; then
        pass "output/$verb to a FIFO: its reader gets the file, it stays a FIFO"
    else
        fail "output/$verb to a FIFO: its reader gets the file, it stays a FIFO" "status $rc, now $now, reader got $(head -c 80 "$WORK/out/fifo.$verb")"
    fi
done

# A link to /proc/self/fd/1, as /dev/stdout is: the output reaches standard
# output; the link stays a link.
for verb in export convert; do
    ln -sfn /proc/self/fd/1 "$D/stdout"
    if [ $verb = export ]; then p export com.example.h "$D/stdout"; else
        p convert -convert xml1 -o "$D/stdout" "$WORK/files/h.plist"
    fi
    if [ "$rc" = 0 ] && [ -L "$D/stdout" ] && grep -q '<key>Greeting</key>' "$WORK/stdout"; then
        pass "output/$verb to a link to /proc/self/fd/1: written to standard output, the link kept"
    else
        fail "output/$verb to a link to /proc/self/fd/1: written to standard output, the link kept" "status $rc, now $(kind "$D/stdout"), stdout $(head -c 80 "$WORK/stdout")"
    fi
done

# A link to a regular file: the file gets the output; the link stays.
printf 'old\n' >"$WORK/files/target.plist"
ln -sfn "$WORK/files/target.plist" "$D/link.plist"
p export com.example.h "$D/link.plist"
if [ "$rc" = 0 ] && [ -L "$D/link.plist" ] && grep -q '<key>Greeting</key>' "$WORK/files/target.plist"; then
    pass "output/export to a link to a file: the file written, the link kept"
else
    fail "output/export to a link to a file: the file written, the link kept" "status $rc, now $(kind "$D/link.plist")"
fi
# A directory, and a link to nothing: refused.
mkdir -p "$D/dir"
ln -sfn "$D/nothing-here" "$D/dangling"
for target in "$D/dir" "$D/dangling"; do
    p export com.example.h "$target"
    if [ "$rc" = 1 ] && [ -s "$WORK/stderr" ] && [ ! -e "$D/nothing-here" ]; then
        pass "output/export to $(basename "$target"): refused"
    else
        fail "output/export to $(basename "$target"): refused" "status $rc"
    fi
done

# ---------------------------------------------------------------------------
# Standard output that cannot be written: every command that writes says so
# and exits non-zero.

# fails NAME ARGS... — prefs with stdout on /dev/full, then closed, then a
# pipe whose reader has gone (SIGPIPE ignored, as a parent may leave it).
fails() {
    local name=$1
    shift
    "$PREFS" "$@" >/dev/full 2>"$WORK/stderr"
    rc=$?
    if [ "$rc" != 0 ] && grep -q 'standard output' "$WORK/stderr"; then
        pass "stdout/$name: a full disk is an error"
    else
        fail "stdout/$name: a full disk is an error" "status $rc, stderr: $(head -c 200 "$WORK/stderr")"
    fi
    "$PREFS" "$@" 2>"$WORK/stderr" >&-
    rc=$?
    if [ "$rc" != 0 ] && grep -q 'standard output' "$WORK/stderr"; then
        pass "stdout/$name: a closed descriptor is an error"
    else
        fail "stdout/$name: a closed descriptor is an error" "status $rc, stderr: $(head -c 200 "$WORK/stderr")"
    fi
    # The reader (true) has exited by the time prefs, started half a second
    # later, writes.
    (
        trap '' PIPE
        sleep 0.5
        exec "$PREFS" "$@" 2>"$WORK/stderr"
    ) | true
    rc=${PIPESTATUS[0]}
    if [ "$rc" != 0 ] && grep -q 'standard output' "$WORK/stderr"; then
        pass "stdout/$name: a pipe without a reader is an error"
    else
        fail "stdout/$name: a pipe without a reader is an error" "status $rc, stderr: $(head -c 200 "$WORK/stderr")"
    fi
}
"$PREFS" export com.example.h "$WORK/files/h.plist"
fails "read D" read com.example.h
fails "read D K" read com.example.h Greeting
fails "read" read
fails "export D -" export com.example.h -
fails "convert -o -" convert -convert xml1 -o - "$WORK/files/h.plist"
fails "convert -p" convert -p "$WORK/files/h.plist"
fails "domains" domains
fails "find" find hello
fails "help" help
fails "ui D (the plain listing)" ui com.example.h
fails "ui (the plain listing)" ui


# ---------------------------------------------------------------------------
# The terminal: every command fed keys, values, names and paths holding ESC
# (a screen clear, a window title), CR (hiding text behind "fake"), the C1
# CSI U+009B and the override U+202E, run in a pseudo-terminal
# (Tests/cli/terminal.py), and the bytes that reach it checked.

if command -v python3 >/dev/null; then
    # Old-style escapes of the hostile text, and the text itself.
    HOS='\U001b[2Jfake\U001b]0;pwned\U0007\U000dfake\U009b31m\U202eevil'
    H=$'\e[2Jfake\e]0;pwned\a\rfake\u009b31m\u202eevil'
    export XDG_DATA_HOME=$WORK/data
    mkdir -p "$XDG_DATA_HOME/prefs/schemas"
    printf '{ "k%s" = "%s"; plain = "%s"; n = (1, "%s"); }' "$HOS" "$HOS" "$HOS" "$HOS" >"$WORK/files/evil.txt"
    "$PREFS" convert -convert binary1 -o "$WORK/files/evil.bplist" "$WORK/files/evil.txt"
    cp "$WORK/files/evil.bplist" "$CFG/com.example.evil.plist"
    cp "$WORK/files/evil.bplist" "$CFG/com.example.evil2.plist"
    cp "$WORK/files/evil.bplist" "$CFG/com.evil$H.plist"
    printf '{ PreferenceSpecifiers = ( { Type = PSTextFieldSpecifier; Key = "k%s"; Title = "%s"; Description = "%s"; DefaultValue = "%s"; } ); }' \
        "$HOS" "$HOS" "$HOS" "$HOS" >"$WORK/files/schema.txt"
    "$PREFS" convert -convert binary1 -o "$XDG_DATA_HOME/prefs/schemas/com.example.evil.plist" "$WORK/files/schema.txt"
    EVILPATH=$WORK/files/bad$H.plist
    printf 'not a plist (' >"$EVILPATH"
    printf '{ PayloadIdentifier = "com.example.p%s"; PayloadDisplayName = "%s"; PayloadType = Configuration; PayloadContent = ( { PayloadType = "com.example.q%s"; PayloadIdentifier = x; Key = v; } ); }' \
        "$HOS" "$HOS" "$HOS" >"$WORK/files/profile.txt"
    "$PREFS" convert -convert binary1 -o "$WORK/files/evil.mobileconfig" "$WORK/files/profile.txt"
    mkdir -p "$MAN/.profiles"
    printf '{ PayloadIdentifier = "com.example.r%s"; PayloadDisplayName = "%s"; Domains = ("com.example.d%s"); Files = (); }' \
        "$HOS" "$HOS" "$HOS" >"$WORK/files/receipt.txt"
    "$PREFS" convert -convert binary1 -o "$MAN/.profiles/com.example.r.plist" "$WORK/files/receipt.txt"

    # term NAME [terminal.py options] -- ARGS... — runs prefs ARGS in a
    # pseudo-terminal; passes when the bytes that reached it are clean.
    term() {
        local name=$1
        shift
        local opts=()
        while [ "$1" != "--" ]; do
            opts+=("$1")
            shift
        done
        shift
        if python3 "$HERE/terminal.py" "${opts[@]}" -- "$PREFS" "$@" >"$WORK/term.log" 2>&1; then
            pass "terminal/$name"
        else
            fail "terminal/$name" "$(head -c 300 "$WORK/term.log")"
        fi
    }
    term "read" -- read
    term "read D" -- read com.example.evil
    term "read D K (a hostile key and value)" -- read com.example.evil "k$H"
    term "read D K (a hostile value)" -- read com.example.evil plain
    term "read D K (an absent hostile key)" -- read com.example.evil "x$H"
    term "read-type D K" -- read-type com.example.evil "x$H"
    term "write D '<hostile text>'" -- write com.example.evil "$H"
    term "write D K -int <hostile text>" -- write com.example.evil n -int "$H"
    term "write D K -array-add to a string" -- write com.example.evil "k$H" -array-add x
    term "rename D <absent hostile key>" -- rename com.example.evil "x$H" y
    term "delete D <absent hostile key>" -- delete com.example.evil "x$H"
    term "delete <hostile domain>" -- delete "com.absent$H"
    term "find (hostile matches)" -- find pwned
    term "find (a hostile word, nothing found)" -- find "$H"
    term "domains (a hostile domain name)" -- domains
    term "explain D" -- explain com.example.evil
    term "explain D K" -- explain com.example.evil "k$H"
    term "explain D <absent hostile key>" -- explain com.example.evil "x$H"
    term "explain <hostile domain>" -- explain "com.absent$H"
    term "export D - (XML to a terminal)" -- export com.example.evil -
    term "export D - -format binary1" -- export com.example.evil - -format binary1
    # An output path that is a terminal (/dev/tty, the command's own): a
    # binary property list is refused there too, nothing written, exit 1;
    # XML is escaped as on standard output. A pipe and a file get the bytes.
    for verb in export convert; do
        if [ $verb = export ]; then args=(export com.example.evil /dev/tty -format binary1); else
            args=(convert -convert binary1 -o /dev/tty "$WORK/files/evil.txt")
        fi
        TERMINAL_LOG=$WORK/tty.bytes python3 "$HERE/terminal.py" -- "$PREFS" "${args[@]}" >"$WORK/term.log" 2>&1
        if [ "$(tail -n 1 "$WORK/term.log")" = "status 1" ] && ! grep -q bplist "$WORK/tty.bytes" \
            && grep -q "cannot write /dev/tty: a binary property list is not written to a terminal" "$WORK/tty.bytes"; then
            pass "terminal/$verb binary1 to /dev/tty: refused, nothing written, exit 1"
        else
            fail "terminal/$verb binary1 to /dev/tty: refused, nothing written, exit 1" "$(tail -n 1 "$WORK/term.log"); $(head -c 200 "$WORK/tty.bytes" | cat -v)"
        fi
    done
    # XML carries C1 controls and direction overrides (not ESC or CR).
    printf '{ "k\\U009b31m" = "\\U202eevil\\U009b31m"; }' >"$WORK/files/evil-xml.txt"
    "$PREFS" convert -convert xml1 -o "$CFG/com.example.evilxml.plist" "$WORK/files/evil-xml.txt"
    TERMINAL_LOG=$WORK/tty.bytes python3 "$HERE/terminal.py" -- "$PREFS" export com.example.evil - -format binary1 >"$WORK/term.log" 2>&1
    if [ "$(tail -n 1 "$WORK/term.log")" = "status 1" ] && ! grep -q bplist "$WORK/tty.bytes" \
        && grep -q "prefs: a binary property list is not written to a terminal" "$WORK/tty.bytes"; then
        pass "terminal/export binary1 to standard output, a terminal: refused, nothing written, exit 1"
    else
        fail "terminal/export binary1 to standard output, a terminal: refused, nothing written, exit 1" "$(tail -n 1 "$WORK/term.log"); $(head -c 200 "$WORK/tty.bytes" | cat -v)"
    fi
    term "export D /dev/tty (XML, escaped)" -- export com.example.evilxml /dev/tty
    term "convert -convert xml1 -o /dev/tty (escaped)" -- convert -convert xml1 -o /dev/tty "$WORK/files/evil-xml.txt"
    ok "terminal/export binary1 to /dev/stdout, a pipe: the bytes" \
        test "$("$PREFS" export com.example.evil /dev/stdout -format binary1 | head -c 8)" = bplist00
    "$PREFS" export com.example.evil "$WORK/files/evil-export.plist" -format binary1
    ok "terminal/export binary1 to a file: the bytes" test "$(head -c 8 "$WORK/files/evil-export.plist")" = bplist00
    term "export <hostile domain>" -- export "com.absent$H" -
    term "export D <hostile path in a missing directory>" -- export com.example.evil "$WORK/missing$H/x.plist"
    term "import D <hostile path>" -- import com.example.x "$EVILPATH"
    term "import D <hostile path that is missing>" -- import com.example.x "$EVILPATH.missing"
    term "convert -lint <hostile path>" -- convert -lint "$EVILPATH"
    term "convert -p (hostile values)" -- convert -p "$WORK/files/evil.bplist"
    term "convert -convert xml1 -o - (hostile values)" -- convert -convert xml1 -o - "$WORK/files/evil.bplist"
    term "convert -convert binary1 -o - (to a terminal)" -- convert -convert binary1 -o - "$WORK/files/evil.txt"
    term "convert -convert xml1 <hostile path>" -- convert -convert xml1 "$EVILPATH"
    term "schema show (hostile key, title, description, default)" -- schema show com.example.evil
    term "schema check <hostile path>" -- schema check "$EVILPATH"
    term "schema c (hostile schema)" -- schema c com.example.evil
    term "schema show <hostile domain>" -- schema show "com.absent$H"
    term "profile install (hostile identifier, name, payload type)" -- profile install "$WORK/files/evil.mobileconfig"
    term "profile install <hostile path>" -- profile install "$EVILPATH"
    term "profile list (a hostile receipt)" -- profile list
    term "profile remove <hostile identifier>" -- profile remove "com.example.p$H"
    term "profile install -user <hostile name>" -- profile install -user "u$H" "$WORK/files/evil.mobileconfig"
    term "an unknown hostile verb" -- "$H"
    term "-host <hostile name>" -- -host "$H" read com.example.evil
    term "watch D (a hostile change)" --then "1.5:$PREFS write com.example.evil 'w$H' -string '$H'" --stop 3 -- watch com.example.evil
    term "ui D (the screen)" --screen --keys 2:q -- ui com.example.evil
    term "ui D: d on a hostile key (the status line)" --screen --keys 1.5:d --keys 2.5:q -- ui com.example.evil2
    term "ui (the list of domains)" --screen --keys 2:q -- ui
    term "ui <hostile domain>" -- ui "/$H"
    TERM=dumb term "ui D, the plain listing (TERM=dumb)" -- ui com.example.evil
    unset XDG_DATA_HOME
else
    skip "terminal/*" "no python3"
fi


# A library message that quotes a key holding a newline cannot forge a
# second line of the command's messages: a write refused because a managed
# file forces that key.
mkdir -p "$MAN"
python3 -c 'import plistlib, sys; sys.stdout.buffer.write(plistlib.dumps({"k\nprefs: forged line": "x"}))' \
    >"$MAN/com.example.h.plist"
p write com.example.h "$(printf 'k\nprefs: forged line')" -string y
rm -f "$MAN/com.example.h.plist"
if [ "$rc" = 1 ] && [ "$(grep -c . "$WORK/stderr")" = 1 ] && ! grep -q '^prefs: forged line' "$WORK/stderr"; then
    pass "messages/a key with a newline in a library message: one line"
else
    fail "messages/a key with a newline in a library message: one line" "status $rc: $(head -c 200 "$WORK/stderr")"
fi

# ---------------------------------------------------------------------------
# Binary reader memory: a file of just under 64 MiB whose offset table names
# one boolean 16 million times is read with memory a small multiple of its
# size: the command runs with its address space limited to 4 times the file.

if command -v python3 >/dev/null && command -v prlimit >/dev/null; then
    python3 -c '
import struct, sys
n = (64 * 1024 * 1024 - 64 - 9 - 32) // 4
sys.stdout.buffer.write(b"bplist00\x09" + struct.pack(">I", 8) * n + struct.pack(">6xBBQQQ", 4, 4, n, 0, 9))
' >"$WORK/files/one-boolean.plist"
    limit=$((4 * $(stat -c %s "$WORK/files/one-boolean.plist")))
    prlimit --as=$limit "$PREFS" convert -lint "$WORK/files/one-boolean.plist" >"$WORK/stdout" 2>"$WORK/stderr"
    rc=$?
    if [ "$rc" = 0 ] && grep -q ': OK' "$WORK/stdout"; then
        pass "binary/a 64 MiB table naming one boolean: read within 4 times the file's size"
    else
        fail "binary/a 64 MiB table naming one boolean: read within 4 times the file's size" "status $rc: $(head -c 200 "$WORK/stderr")"
    fi
    rm -f "$WORK/files/one-boolean.plist"
else
    skip "binary/a 64 MiB table naming one boolean" "no python3 or prlimit"
fi

# ---------------------------------------------------------------------------
# Configuration profiles.

PROFILES=$HERE/profiles
PID=com.example.fleet.profile
export PREFS_MANAGED_DIR=$WORK/managed-profiles
MAN=$PREFS_MANAGED_DIR
mkdir -p "$MAN"

# -user takes the name of an existing account only, and never a name that
# is a file or directory of everyone's in the managed directory.
for name in com.example.other.plist com.example.other.d no-such-user-here; do
    p profile install -user "$name" "$PROFILES/fleet.mobileconfig"
    if [ "$rc" != 0 ] && [ ! -e "$MAN/$name" ] && [ -z "$(ls -A "$MAN" 2>/dev/null | grep -v '^\.profiles$')" ]; then
        pass "profile/-user $name: refused, nothing made"
    else
        fail "profile/-user $name: refused, nothing made" "status $rc; $(ls -A "$MAN" 2>&1 | tr '\n' ' ')"
    fi
    rm -rf "${MAN:?}/$name"
done
me=$(id -un)
p profile install -user "$me" "$PROFILES/fleet.mobileconfig"
ok "profile/-user <an existing account>: installed in its directory" test "$rc" = 0 -a -f "$MAN/$me/com.example.editor.d/$PID.plist"
p profile remove -user "$me" "$PID"
ok "profile/-user <an existing account>: removed" test "$rc" = 0 -a ! -e "$MAN/$me/com.example.editor.d/$PID.plist"


# Identifiers and names with control characters: the profile is refused,
# nothing is written (no file name with a newline, no forged list line).
# mkprofile NAME TEXT — an old-style profile TEXT as a binary profile NAME.
mkprofile() {
    printf '%s' "$2" >"$WORK/files/$1.txt"
    "$PREFS" convert -convert binary1 -o "$WORK/files/$1" "$WORK/files/$1.txt"
}
PAYLOAD='PayloadContent = ( { PayloadType = com.example.editor; PayloadIdentifier = p1; Theme = dark; } );'
mkprofile nl-id "{ PayloadIdentifier = \"com.example.a\\nforged (everyone): com.example.bank\"; PayloadType = Configuration; $PAYLOAD }"
mkprofile esc-name "{ PayloadIdentifier = com.example.b; PayloadDisplayName = \"Fleet\\U001b]0;x\\U0007\"; PayloadType = Configuration; $PAYLOAD }"
mkprofile cr-uuid "{ PayloadIdentifier = com.example.c; PayloadUUID = \"1234\\U000d5678\"; PayloadType = Configuration; $PAYLOAD }"
mkprofile bidi-payload-id "{ PayloadIdentifier = com.example.d; PayloadType = Configuration; PayloadContent = ( { PayloadType = com.example.editor; PayloadIdentifier = \"p\\U202e1\"; Theme = dark; } ); }"
mkprofile nl-domain "{ PayloadIdentifier = com.example.e; PayloadType = Configuration; PayloadContent = ( { PayloadType = com.apple.ManagedClient.preferences; PayloadIdentifier = p; PayloadContent = { \"com.example.x\\ny\" = { Forced = ( { mcx_preference_settings = { k = v; }; } ); }; }; } ); }"
mkprofile c1-type "{ PayloadIdentifier = com.example.f; PayloadType = Configuration; PayloadContent = ( { PayloadType = \"com.example.\\U009bq\"; PayloadIdentifier = p; Theme = dark; } ); }"
for f in nl-id esc-name cr-uuid bidi-payload-id nl-domain c1-type; do
    before=$(find "$MAN" | sort)
    p profile install "$WORK/files/$f"
    if [ "$rc" = 1 ] && [ "$(find "$MAN" | sort)" = "$before" ] && grep -q 'nothing was written' "$WORK/stderr"; then
        pass "profile/$f: refused, nothing written"
    else
        fail "profile/$f: refused, nothing written" "status $rc; $(head -c 200 "$WORK/stderr")"
    fi
done
p profile list
ok "profile/list: no forged line" test "$rc" = 0 -a ! -s "$WORK/stdout"


# An install is all or nothing: the second domain's drop-in directory cannot
# be made (a file is in the way), so the first domain's drop-in must not
# stay forced, and no receipt is left.
printf 'in the way\n' >"$MAN/com.example.viewer.d"
before=$(find "$MAN" -type f ! -name .prefs-changes -printf '%p %s\n' | sort)
p profile install "$PROFILES/fleet.mobileconfig"
if [ "$rc" = 1 ] && [ ! -e "$MAN/com.example.editor.d/$PID.plist" ] && [ ! -e "$MAN/.profiles/$PID.plist" ] &&
    [ "$(find "$MAN" -type f ! -name .prefs-changes -printf '%p %s\n' | sort)" = "$before" ]; then
    pass "profile/install: a later write fails, nothing is left"
else
    fail "profile/install: a later write fails, nothing is left" "status $rc; $(find "$MAN" -type f | tr '\n' ' ')"
fi
rm -f "$MAN/com.example.viewer.d"
# A reinstall that fails leaves the earlier install exactly as it was.
quiet profile install "$PROFILES/fleet-v2.mobileconfig"
mkdir -p "$MAN/com.example.viewer.d" && chmod 0755 "$MAN/com.example.viewer.d"
printf 'in the way\n' >"$WORK/files/way" && rm -rf "$MAN/com.example.viewer.d" && cp "$WORK/files/way" "$MAN/com.example.viewer.d"
before=$(find "$MAN" -type f ! -name .prefs-changes -exec md5sum {} + | sort)
p profile install "$PROFILES/fleet.mobileconfig"
if [ "$rc" = 1 ] && [ "$(find "$MAN" -type f ! -name .prefs-changes -exec md5sum {} + | sort)" = "$before" ]; then
    pass "profile/reinstall: a later write fails, the earlier install is as it was"
else
    fail "profile/reinstall: a later write fails, the earlier install is as it was" "status $rc; $(head -c 200 "$WORK/stderr")"
fi
rm -f "$MAN/com.example.viewer.d"
quiet profile remove "$PID"


# A profile writes and removes only files it made: another tool's drop-in
# of the same name is neither overwritten nor deleted.
mkdir -p "$MAN/com.example.editor.d"
printf '<?xml version="1.0"?><plist version="1.0"><dict><key>Theme</key><string>tool</string></dict></plist>\n' >"$WORK/files/tool.plist"
cp "$WORK/files/tool.plist" "$MAN/com.example.editor.d/$PID.plist"
p profile install "$PROFILES/fleet.mobileconfig"
if [ "$rc" = 1 ] && cmp -s "$WORK/files/tool.plist" "$MAN/com.example.editor.d/$PID.plist" && [ ! -e "$MAN/.profiles/$PID.plist" ] &&
    [ ! -e "$MAN/com.example.viewer.d/$PID.plist" ]; then
    pass "profile/install: another tool's drop-in of the same name is not overwritten"
else
    fail "profile/install: another tool's drop-in of the same name is not overwritten" "status $rc; $(head -c 200 "$WORK/stderr")"
fi
rm -f "$MAN/com.example.editor.d/$PID.plist"
quiet profile install "$PROFILES/fleet.mobileconfig"
# Another tool replaces the profile's drop-in after the install: remove
# leaves it.
cp "$WORK/files/tool.plist" "$MAN/com.example.editor.d/$PID.plist"
p profile remove "$PID"
if [ "$rc" = 0 ] && cmp -s "$WORK/files/tool.plist" "$MAN/com.example.editor.d/$PID.plist" &&
    [ ! -e "$MAN/com.example.viewer.d/$PID.plist" ] && [ ! -e "$MAN/.profiles/$PID.plist" ] && grep -q 'left' "$WORK/stderr"; then
    pass "profile/remove: a drop-in another tool has written since is left"
else
    fail "profile/remove: a drop-in another tool has written since is left" "status $rc; $(head -c 200 "$WORK/stderr")"
fi
rm -f "$MAN/com.example.editor.d/$PID.plist"

summary
