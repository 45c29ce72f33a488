#!/usr/bin/env bash
#
# run.sh <prefix> — tests of the installed `prefs` command (<prefix>/bin/prefs,
# from `make install PREFIX=<prefix>`), run as a user runs it, with
# XDG_CONFIG_HOME, PREFS_SYSTEM_DIR, PREFS_MANAGED_DIR and HOME in a
# temporary directory.
#
# Covers every verb and flag of doc/prefs.1: read output against the golden
# files in Tests/cli/golden, the exact messages and exit statuses (0, 1, 64),
# refusals that must leave the domain file byte for byte as it was, values
# written by `prefs` read back through the C API and the other way round
# (Tests/cli/capi.c, compiled with pkg-config against <prefix>), export as
# Apple XML, import from a file and from stdin, domains, find, rename,
# delete, the global domain's three names, plist-path domains, -currentHost,
# -host and watch.
#
# One line per check, then "N passed, N failed". Exit status: 0 when every
# check passed, 1 otherwise, 2 on bad usage. VERBOSE=1 prints the full
# difference of failing checks. CC picks the C compiler (default cc);
# CFLAGS and LDFLAGS (default: hardening flags) are added to its compile.
# GOLDEN_UPDATE=1 rewrites the golden files from this run's output (review
# the difference before committing it). GROUP=NAME runs one group of checks
# (the "#@group" lines below; Tests/lib.sh), then the final checks.

set -u

if [ $# -ne 1 ]; then
    echo "usage: $0 <prefix>" >&2
    exit 2
fi
if [ ! -x "$1/bin/prefs" ]; then
    echo "$0: $1/bin/prefs: not found (run make install PREFIX=$1 first)" >&2
    exit 2
fi
PREFIX=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
GOLDEN=$HERE/golden
PREFS=$PREFIX/bin/prefs
CC=${CC:-cc}
VERBOSE=${VERBOSE:-0}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/prefs-cli-tests.XXXXXX")
WATCHERS=()
cleanup() {
    for pid in "${WATCHERS[@]}"; do kill "$pid" 2>/dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT

export HOME=$WORK/home
export XDG_CONFIG_HOME=$WORK/config
export PREFS_SYSTEM_DIR=$WORK/system
export PREFS_MANAGED_DIR=$WORK/managed
PKG_CONFIG_PATH=$(for d in "$PREFIX"/lib/pkgconfig "$PREFIX"/lib/*/pkgconfig; do [ -d "$d" ] && printf '%s:' "$d"; done)
export PKG_CONFIG_PATH=${PKG_CONFIG_PATH%:}
unset PKG_CONFIG_LIBDIR LD_LIBRARY_PATH LANGUAGE LC_ALL LC_MESSAGES
export LANG=C
mkdir -p "$HOME" "$WORK/files"
CFG=$XDG_CONFIG_HOME
if [ -s /etc/machine-id ]; then HOSTID=$(head -n 1 /etc/machine-id); else HOSTID=$(hostname); fi

. "$HERE/../lib.sh"

# p ARGS... — runs prefs; stdout in $WORK/out, stderr in $WORK/err, status in $rc.
p() {
    "$PREFS" "$@" >"$WORK/out" 2>"$WORK/err"
    rc=$?
}

# pin FILE ARGS... — the same with standard input from FILE.
pin() {
    local input=$1
    shift
    "$PREFS" "$@" <"$input" >"$WORK/out" 2>"$WORK/err"
    rc=$?
}

# same FILE TEXT — true when FILE holds exactly TEXT plus one newline (or
# nothing at all when TEXT is empty).
same() {
    if [ -z "$2" ]; then
        [ ! -s "$1" ]
    else
        printf '%s\n' "$2" >"$WORK/want"
        cmp -s "$1" "$WORK/want"
    fi
}

show() {
    if [ "$VERBOSE" = 1 ]; then
        printf '%s\n' "---- expected:" "$1" "---- got:" >&2
        cat "$2" >&2
    fi
}

# expect NAME STATUS STDOUT STDERR -- ARGS...
# Runs prefs and compares the status and both outputs exactly; "*" skips a
# comparison of an output.
expect() {
    local name=$1 status=$2 want_out=$3 want_err=$4
    shift 5
    p "$@"
    check_run "$name" "$status" "$want_out" "$want_err"
}

# expect_in NAME INPUT STATUS STDOUT STDERR -- ARGS... — expect with stdin.
expect_in() {
    local name=$1 input=$2 status=$3 want_out=$4 want_err=$5
    shift 6
    pin "$input" "$@"
    check_run "$name" "$status" "$want_out" "$want_err"
}

check_run() {
    local name=$1 status=$2 want_out=$3 want_err=$4
    if [ "$rc" != "$status" ]; then
        fail "$name" "status $rc, expected $status; stderr: $(head -c 200 "$WORK/err")"
    elif [ "$want_out" != "*" ] && ! same "$WORK/out" "$want_out"; then
        show "$want_out" "$WORK/out"
        fail "$name" "stdout: $(head -c 200 "$WORK/out")"
    elif [ "$want_err" != "*" ] && ! same "$WORK/err" "$want_err"; then
        show "$want_err" "$WORK/err"
        fail "$name" "stderr: $(head -c 200 "$WORK/err")"
    else
        pass "$name"
    fi
}

# golden NAME STATUS FILE -- ARGS... — stdout equals golden/FILE, stderr empty.
golden() {
    local name=$1 status=$2 base=$3 file=$GOLDEN/$3
    shift 4
    p "$@"
    if [ "${GOLDEN_UPDATE:-0}" = 1 ] && [ "$rc" = "$status" ]; then cp "$WORK/out" "$file"; fi
    if [ "$rc" != "$status" ]; then
        fail "$name" "status $rc, expected $status; stderr: $(head -c 200 "$WORK/err")"
    elif ! cmp -s "$WORK/out" "$file"; then
        [ "$VERBOSE" = 1 ] && diff "$file" "$WORK/out" >&2
        fail "$name" "stdout differs from golden/$base: $(diff "$file" "$WORK/out" | head -c 200)"
    elif [ -s "$WORK/err" ] && [ "$status" = 0 ]; then
        fail "$name" "unexpected stderr: $(head -c 200 "$WORK/err")"
    else
        pass "$name"
    fi
}

# snapshot FILE — remembers FILE's bytes (or that it is absent) for unchanged.
snapshot() {
    rm -f "$WORK/snap"
    snap_absent=1
    if [ -e "$1" ]; then
        cp -p "$1" "$WORK/snap"
        snap_absent=0
    fi
}

unchanged() {
    if [ "$snap_absent" = 1 ]; then
        [ ! -e "$1" ]
    else
        cmp -s "$1" "$WORK/snap"
    fi
}

# refuse NAME STATUS FILE -- ARGS... — prefs must fail with STATUS, print
# nothing on stdout, say why on stderr, and leave FILE byte for byte as it
# was (or still absent), with nothing moved aside next to it.
refuse() {
    local name=$1 status=$2 file=$3
    shift 4
    snapshot "$file"
    local before
    before=$(ls -a "$(dirname "$file")" 2>/dev/null)
    p "$@"
    if [ "$rc" != "$status" ]; then
        fail "$name" "status $rc, expected $status; stderr: $(head -c 200 "$WORK/err")"
    elif [ -s "$WORK/out" ]; then
        fail "$name" "wrote to stdout: $(head -c 200 "$WORK/out")"
    elif [ ! -s "$WORK/err" ]; then
        fail "$name" "no message on stderr"
    elif ! unchanged "$file"; then
        fail "$name" "$file changed"
    elif [ "$(ls -a "$(dirname "$file")" 2>/dev/null)" != "$before" ]; then
        fail "$name" "files appeared or vanished next to $file"
    else
        pass "$name"
    fi
}

# quiet ARGS... — runs prefs for setting up a check; a failure is reported.
quiet() {
    p "$@"
    if [ "$rc" != 0 ]; then fail "setup: prefs $*" "status $rc: $(head -c 200 "$WORK/err")"; fi
}

# build_capi — compiles Tests/cli/capi.c into $WORK/capi as a user of a
# private prefix builds (README): the .pc has no rpath.
build_capi() {
    # shellcheck disable=SC2086
    $CC ${CFLAGS--O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2} -std=c99 -Wall -Wextra -o "$WORK/capi" "$HERE/capi.c" \
        $(pkg-config --cflags --libs prefs) -Wl,-rpath,"$(pkg-config --variable=libdir prefs)" \
        ${LDFLAGS--Wl,-z,relro -Wl,-z,now} 2>"$WORK/cc.log"
}

# capi_app NAME WANT ARGS... — $WORK/capi app ARGS prints exactly WANT
# (an application's value through the C API).
capi_app() {
    local name=$1 want=$2
    shift 2
    if [ -x "$WORK/capi" ]; then
        "$WORK/capi" app "$@" >"$WORK/out" 2>"$WORK/err"
        rc=$?
        if same "$WORK/out" "$want"; then pass "$name"; else fail "$name" "status $rc: $(head -c 200 "$WORK/out")"; fi
    else
        fail "$name" "the capi test program did not build"
    fi
}

run_groups "$0"

#@group usage
# ---------------------------------------------------------------------------
# Usage

p
if [ "$rc" = 64 ] && [ ! -s "$WORK/out" ] && grep -q '^usage: prefs' "$WORK/err"; then
    pass "usage/bare prefs prints usage on stderr, exit 64"
else
    fail "usage/bare prefs prints usage on stderr, exit 64" "status $rc"
fi
p help
if [ "$rc" = 0 ] && [ ! -s "$WORK/err" ] && grep -q '^usage: prefs' "$WORK/out"; then
    missing=""
    for word in read read-type write rename delete import export domains find watch help \
        -currentHost -host -globalDomain NSGlobalDomain -string -data -int -integer -float \
        -bool -boolean -date -array -array-add -dict -dict-add; do
        grep -q -- "$word" "$WORK/out" || missing="$missing $word"
    done
    if [ -z "$missing" ]; then pass "usage/help names every verb and flag"; else fail "usage/help names every verb and flag" "missing:$missing"; fi
else
    fail "usage/help names every verb and flag" "status $rc"
fi
expect "usage/unknown verb: 64" 64 "" "*" -- frobnicate
expect "usage/unknown verb names the nearest: 64" 64 "" $'prefs: unknown command \'raed\'; did you mean \'read\'?\nRun \'prefs help\' for usage.' -- raed
expect "usage/a word near no verb names none: 64" 64 "" $'prefs: unknown command \'xyzzy\'\nRun \'prefs help\' for usage.' -- xyzzy
expect "usage/a longer slip: 64" 64 "" $'prefs: unknown command \'exlpain\'; did you mean \'explain\'?\nRun \'prefs help\' for usage.' -- exlpain
expect "usage/--version" 0 "prefs (libprefs) $(cat "$HERE/../../VERSION")" "" -- --version
expect "usage/read with 3 operands: 64" 64 "" "*" -- read a b c
expect "usage/read-type with 1 operand: 64" 64 "" "*" -- read-type com.example.a
expect "usage/write without key: 64" 64 "" "*" -- write com.example.a
expect "usage/rename with 2 operands: 64" 64 "" "*" -- rename com.example.a k
expect "usage/delete without domain: 64" 64 "" "*" -- delete
expect "usage/import without source: 64" 64 "" "*" -- import com.example.a
expect "usage/export without destination: 64" 64 "" "*" -- export com.example.a
expect "usage/domains with an operand: 64" 64 "" "*" -- domains x
expect "usage/find without word: 64" 64 "" "*" -- find
expect "usage/watch without domain: 64" 64 "" "*" -- watch
expect "usage/-host without name: 64" 64 "" "*" -- -host
expect "usage/two host flags: 64" 64 "" "*" -- -currentHost -currentHost read com.example.a
expect "usage/host flag without verb: 64" 64 "" "*" -- -currentHost
ok "usage/no file written by usage errors" test ! -e "$CFG"

#@group write
# ---------------------------------------------------------------------------
# write and read: every value form, read output rules

D=com.example.golden
F=$CFG/$D.plist
quiet write $D string 'hello world'
quiet write $D bare -string 'a$b/c:d.e-f_g9'
quiet write $D int -int -42
quiet write $D big -integer 18446744073709551615
quiet write $D hex -int 0x1F
quiet write $D real -float 2.5
quiet write $D yes -bool YES
quiet write $D no -boolean false
quiet write $D true -bool tRuE
quiet write $D false -bool No
quiet write $D date -date 2026-01-02T03:04:05Z
quiet write $D date2 -date '2026-01-02 05:04:05 +0200'
quiet write $D data -data 0102abFF
quiet write $D array -array one -int 2 -bool no -float 1.5 -date '2026-01-02 03:04:05 +0000' -data 00 -string 'two words' -5
quiet write $D dict -dict b -int 1 a 'x y' c '(p, q)'
quiet write $D 'key with space' $'quote" backslash\\ tab\tnewline\nend \xc3\xa9'
quiet write $D comment -string '//x'
quiet write $D empty -string ''
quiet write $D nested '{ inner = { deep = (1, 2); }; list = (); }'
quiet write $D plaindata '<0a0b>'
quiet write $D plainarray '(a, "b c")'
quiet write $D words 'plain text; not a plist'
quiet write $D negative -5
golden "read/domain: old-style text, sorted keys, 4-space indent, quoting" 0 read-domain.txt -- read $D
ok "write/domain file is created in XDG_CONFIG_HOME with mode 0600" test "$(stat -c %a "$F" 2>/dev/null)" = 600
ok "write/domain file is an XML property list" grep -q '^<plist version="1.0">$' "$F"

expect "read/string value raw" 0 "hello world" "" -- read $D string
expect "read/string with escapes raw" 0 $'quote" backslash\\ tab\tnewline\nend \xc3\xa9' "" -- read $D 'key with space'
expect "read/empty string raw: status 0" 0 "*" "" -- read $D empty
ok "read/empty string raw: one empty line" test "$(od -An -c "$WORK/out" | tr -d ' ')" = '\n'
expect "read/integer bare" 0 "-42" "" -- read $D int
expect "read/unsigned 64-bit integer" 0 "18446744073709551615" "" -- read $D big
expect "read/-int takes 0x hexadecimal" 0 "31" "" -- read $D hex
expect "read/float bare" 0 "2.5" "" -- read $D real
expect "read/-bool YES is 1" 0 "1" "" -- read $D yes
expect "read/-boolean false is 0" 0 "0" "" -- read $D no
expect "read/-bool tRuE is 1" 0 "1" "" -- read $D true
expect "read/-bool No is 0" 0 "0" "" -- read $D false
expect "read/date ISO 8601, unquoted as macOS prints it" 0 '2026-01-02 03:04:05 +0000' "" -- read $D date
expect "read/date with +0200 offset" 0 '2026-01-02 03:04:05 +0000' "" -- read $D date2
expect "read/data" 0 "{length = 4, bytes = 0x0102abff}" "" -- read $D data
expect "read/old-style data without flag" 0 "{length = 2, bytes = 0x0a0b}" "" -- read $D plaindata
expect "read/array without flag" 0 $'(\n    a,\n    "b c"\n)' "" -- read $D plainarray
expect "read/text that is not a plist is a string" 0 "plain text; not a plist" "" -- read $D words
expect "read/-5 is a string, not a flag" 0 "-5" "" -- read $D negative
expect "read/string starting with // is quoted inside containers" 0 "//x" "" -- read $D comment
golden "read/dictionary value" 0 read-dict.txt -- read $D dict

for pair in string:string int:integer big:integer real:float yes:boolean date:date data:data \
    array:array dict:dictionary empty:string plaindata:data; do
    key=${pair%%:*}
    type=${pair#*:}
    expect "read-type/$key is $type" 0 "Type is $type" "" -- read-type $D "$key"
done

# A read of one key of a file another program wrote builds that key only,
# but checks the whole file: a bad value under another key refuses it,
# with the message a read of the whole domain gives.
PB=$CFG/com.example.partbad.plist
printf '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n<dict><key>a</key><string>v</string><key>b</key><integer>12x</integer></dict>\n</plist>\n' >"$PB"
p read com.example.partbad
whole=$(cat "$WORK/err")
refuse "read/one key of a file with a bad value under another: 1, untouched" 1 "$PB" -- read com.example.partbad a
ok "read/one key of such a file: the whole read's message" test "$(cat "$WORK/err")" = "$whole"
rm -f "$PB"
printf '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n<dict><key>a</key><string>v</string><key>b</key><array><integer>2</integer></array><key>a</key><string>w</string></dict>\n</plist>\n' >"$PB"
expect "read/one key of a file another program wrote: a later duplicate wins" 0 "w" "" -- read com.example.partbad a
expect "read-type/one key of a file another program wrote" 0 "Type is array" "" -- read-type com.example.partbad b
rm -f "$PB"

expect "read/absent domain message" 1 "" "Domain com.example.none does not exist" -- read com.example.none
expect "read/absent key message" 1 "" "The domain/default pair of ($D, nokey) does not exist" -- read $D nokey
expect "read-type/absent key message" 1 "" "The domain/default pair of ($D, nokey) does not exist" -- read-type $D nokey
expect "read-type/absent domain" 1 "" "The domain/default pair of (com.example.none, k) does not exist" -- read-type com.example.none k
expect "read/invalid domain name refused" 1 "" "*" -- read 'not/absolute'

# Values replace values of another type.
quiet write $D real -string now-a-string
expect "write/replaces a value of another type" 0 "Type is string" "" -- read-type $D real
quiet write $D real -float 2.5

# ---------------------------------------------------------------------------
# -array-add, -dict, -dict-add

quiet write $D list -array-add a
quiet write $D list -array-add -int 1 b
expect "write/-array-add creates, then appends" 0 $'(\n    a,\n    1,\n    b\n)' "" -- read $D list
quiet write $D map -dict-add k v
quiet write $D map -dict-add n -int 2 k w
expect "write/-dict-add creates, then merges" 0 $'{\n    k = w;\n    n = 2;\n}' "" -- read $D map
quiet write $D emptyarray -array
expect "write/-array with no items is an empty array" 0 $'(\n)' "" -- read $D emptyarray
quiet write $D emptydict -dict
expect "write/-dict with no pairs is an empty dictionary" 0 $'{\n}' "" -- read $D emptydict
refuse "write/-array-add onto a string: 1, unchanged" 1 "$F" -- write $D string -array-add x
refuse "write/-dict-add onto an array: 1, unchanged" 1 "$F" -- write $D list -dict-add k v

# ---------------------------------------------------------------------------
# Refusals: nothing changes, never a stored "-bool"

refuse "refuse/-int abc: 1" 1 "$F" -- write $D n -int abc
refuse "refuse/-int 1.5: 1" 1 "$F" -- write $D n -int 1.5
refuse "refuse/-int beyond 64 bits: 1" 1 "$F" -- write $D n -int 18446744073709551616
refuse "refuse/-int <5>: 1" 1 "$F" -- write $D n -int '<5>'
refuse "refuse/-int &#53;: 1" 1 "$F" -- write $D n -int '&#53;'
refuse "refuse/-float abc: 1" 1 "$F" -- write $D n -float abc
refuse "refuse/-float past a 32-bit float: 1" 1 "$F" -- write $D n -float 1e39
refuse "refuse/-float past a double: 1" 1 "$F" -- write $D n -float 1e999
refuse "refuse/-float past a double, negative: 1" 1 "$F" -- write $D n -float -1e999
refuse "refuse/-bool maybe: 1" 1 "$F" -- write $D n -bool maybe
refuse "refuse/-bool 1: 1" 1 "$F" -- write $D n -bool 1
refuse "refuse/-data odd hex digits: 1" 1 "$F" -- write $D n -data abc
refuse "refuse/-data non-hex: 1" 1 "$F" -- write $D n -data zz
refuse "refuse/-data with >: 1" 1 "$F" -- write $D n -data '01> <02'
refuse "refuse/-date garbage: 1" 1 "$F" -- write $D n -date yesterday
refuse "refuse/-date February 30: 1" 1 "$F" -- write $D n -date 2026-02-30T00:00:00Z
refuse "refuse/-date bad offset: 1" 1 "$F" -- write $D n -date '2026-01-02 03:04:05 +2400'
refuse "refuse/key without value: 1" 1 "$F" -- write $D n
refuse "refuse/-int without value: 1" 1 "$F" -- write $D n -int
refuse "refuse/-bool without value: 1" 1 "$F" -- write $D n -bool
refuse "refuse/-string without value: 1" 1 "$F" -- write $D n -string
refuse "refuse/-data without value: 1" 1 "$F" -- write $D n -data
refuse "refuse/-date without value: 1" 1 "$F" -- write $D n -date
refuse "refuse/missing key before -bool: 1" 1 "$F" -- write $D -bool yes
refuse "refuse/extra argument after the value: 1" 1 "$F" -- write $D n -int 1 2
refuse "refuse/unknown type flag: 1" 1 "$F" -- write $D n -integr 5
refuse "refuse/-array item flag without value: 1" 1 "$F" -- write $D n -array a -int
refuse "refuse/-array item with bad integer: 1" 1 "$F" -- write $D n -array a -int x
refuse "refuse/-array nested in -array: 1" 1 "$F" -- write $D n -array a -array b
refuse "refuse/-dict key without value: 1" 1 "$F" -- write $D n -dict a 1 b
refuse "refuse/-dict with a flag for key: 1" 1 "$F" -- write $D n -dict -int 1
refuse "refuse/-dict-add value flag without value: 1" 1 "$F" -- write $D n -dict-add a -bool
refuse "refuse/malformed array text: 1" 1 "$F" -- write $D n '(a, b'
refuse "refuse/malformed data text: 1" 1 "$F" -- write $D n '<abc>'
refuse "refuse/malformed quoted text: 1" 1 "$F" -- write $D n '"open'
refuse "refuse/write D malformed {...: 1" 1 "$F" -- write $D '{a = b'
refuse "refuse/write D '{a = b;' unterminated: 1" 1 "$F" -- write $D '{a = b;'
refuse "refuse/write D with an array: 1" 1 "$F" -- write $D '(a, b)'
refuse "refuse/write D with a quoted string: 1" 1 "$F" -- write $D '"text"'
refuse "refuse/write D with a lone key: 1" 1 "$F" -- write $D lonekey
expect "refuse/message names the bad integer" 1 "" "prefs: -int 'abc': not an integer (decimal or 0x hexadecimal, -2^63 to 2^64-1); nothing was changed" -- write $D n -int abc
expect "refuse/message names the bad boolean" 1 "" "prefs: -bool 'maybe': not a boolean (TRUE, FALSE, YES or NO, in any case); nothing was changed" -- write $D n -bool maybe
expect "refuse/message names the flag without value" 1 "" "prefs: -bool needs a value; nothing was changed" -- write $D n -bool
expect "refuse/message names the key without value" 1 "" "prefs: key 'n' has no value; nothing was changed" -- write $D n
expect "refuse/message names odd hex digits" 1 "" "prefs: -data 'abc': odd number of hex digits in <data>; nothing was changed" -- write $D n -data abc
expect "refuse/no key was stored by any refusal" 1 "" "The domain/default pair of ($D, n) does not exist" -- read $D n

(
    export XDG_CONFIG_HOME=$WORK/config-untouched
    mkdir -p "$WORK/untouched"
    for args in "k -bool maybe" "k -int" "k" "k -data abc" "{a"; do
        # shellcheck disable=SC2086
        "$PREFS" write com.example.untouched $args
        "$PREFS" write "$WORK/untouched/file" $args
    done
    printf '(a)' | "$PREFS" import com.example.untouched -
    printf '(a)' | "$PREFS" import "$WORK/untouched/file" -
) >/dev/null 2>&1
ok "refuse/a refused value creates no directory or file at all" test ! -e "$WORK/config-untouched" -a -z "$(ls -A "$WORK/untouched")"

A=$CFG/com.example.absent.plist
refuse "refuse/-bool maybe on an absent domain creates no file" 1 "$A" -- write com.example.absent k -bool maybe
refuse "refuse/key without value on an absent domain creates no file" 1 "$A" -- write com.example.absent k

# ---------------------------------------------------------------------------
# write D '{...}': the whole domain

W=com.example.whole
quiet write $W old v
quiet write $W keep -int 1
quiet write $W '{ keep = 2; new = (x); "quoted key" = "v w"; }'
golden "write/dictionary replaces the whole domain" 0 read-whole.txt -- read $W
quiet write $W '<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>x</key><integer>5</integer></dict></plist>'
expect "write/dictionary in XML form" 0 $'{\n    x = 5;\n}' "" -- read $W

# ---------------------------------------------------------------------------
# rename and delete

R=com.example.rename
quiet write $R a -int 7
quiet write $R other b
quiet rename $R a z
expect "rename/new key has the value" 0 "7" "" -- read $R z
expect "rename/old key is gone" 1 "" "The domain/default pair of ($R, a) does not exist" -- read $R a
expect "rename/keeps the type" 0 "Type is integer" "" -- read-type $R z
refuse "rename/absent key: 1, unchanged" 1 "$CFG/$R.plist" -- rename $R nope x
expect "rename/onto itself keeps the value" 0 "" "" -- rename $R z z
expect "rename/onto itself: value still there" 0 "7" "" -- read $R z
quiet rename $R z other
expect "rename/onto an existing key replaces it" 0 "7" "" -- read $R other

quiet delete $R other
expect "delete/key removed" 1 "" "The domain/default pair of ($R, other) does not exist" -- read $R other
refuse "delete/absent key: 1, unchanged" 1 "$CFG/$R.plist" -- delete $R other
quiet write $R k v
quiet delete $R
expect "delete/domain removed: read says it does not exist" 1 "" "Domain $R does not exist" -- read $R
if [ -e "$CFG/$R.plist" ]; then fail "delete/domain removed: the file is gone" "$CFG/$R.plist still exists"; else pass "delete/domain removed: the file is gone"; fi
p domains
if grep -q "$R" "$WORK/out"; then fail "delete/domain removed: not listed by domains" "$(cat "$WORK/out")"; else pass "delete/domain removed: not listed by domains"; fi
expect "delete/domain removed: delete again says so" 1 "" "Domain $R does not exist" -- delete $R
expect "delete/absent domain" 1 "" "Domain com.example.never does not exist" -- delete com.example.never

# ---------------------------------------------------------------------------
# import and export

S=com.example.small
quiet write $S name Ada
quiet write $S n -int 3
quiet write $S on -bool yes
quiet write $S ratio -float 0.5
quiet write $S when -date 2026-01-02T03:04:05Z
quiet write $S bytes -data 010203
quiet write $S list -array a -int 1
quiet write $S amp -string 'a < b & c'
golden "export/- writes Apple XML on stdout" 0 export-small.plist -- export $S -
quiet export $S "$WORK/files/small-export.plist"
ok "export/file holds the same bytes" cmp -s "$WORK/files/small-export.plist" "$GOLDEN/export-small.plist"
quiet export $S "$WORK/files/small-export.plist"
ok "export/replaces an existing file" cmp -s "$WORK/files/small-export.plist" "$GOLDEN/export-small.plist"
expect "export/absent domain: 1" 1 "" "Domain com.example.none does not exist" -- export com.example.none -
refuse "export/absent domain writes no file" 1 "$WORK/files/none.plist" -- export com.example.none "$WORK/files/none.plist"
rm -f "$WORK/files/mode.plist"
(umask 027 && "$PREFS" export $S "$WORK/files/mode.plist")
ok "export/a new file gets 0666 less the umask" test "$(stat -c %a "$WORK/files/mode.plist")" = 640
chmod 604 "$WORK/files/mode.plist"
quiet export $S "$WORK/files/mode.plist"
ok "export/an existing file keeps its mode" test "$(stat -c %a "$WORK/files/mode.plist")" = 604
mkdir -p "$WORK/files/dir.plist"
expect "export/to a directory: 1" 1 "" "prefs: cannot write $WORK/files/dir.plist: it is a directory" -- export $S "$WORK/files/dir.plist"

quiet export $S "$WORK/files/small-binary.plist" -format binary1
ok "export/-format binary1 writes bplist00" test "$(head -c 8 "$WORK/files/small-binary.plist")" = bplist00
quiet export $S "$WORK/files/small-xml1.plist" -format xml1
ok "export/-format xml1 is the default XML" cmp -s "$WORK/files/small-xml1.plist" "$GOLDEN/export-small.plist"
expect "export/-format of another name: 64" 64 "" "*" -- export $S - -format json
expect "export/-format without a name: 64" 64 "" "*" -- export $S - -format
quiet import com.example.fromBinary "$WORK/files/small-binary.plist"
"$PREFS" read $S >"$WORK/small.txt"
p read com.example.fromBinary
ok "import/a binary export reads back identical" cmp -s "$WORK/out" "$WORK/small.txt"
cp "$WORK/files/small-binary.plist" "$CFG/com.example.binaryDomain.plist"
p read com.example.binaryDomain
ok "binary/a binary domain file reads" cmp -s "$WORK/out" "$WORK/small.txt"
expect "binary/a binary domain file's value" 0 "Ada" "" -- read com.example.binaryDomain name
quiet write com.example.binaryDomain added -int 5
ok "binary/a write keeps the file binary" test "$(head -c 8 "$CFG/com.example.binaryDomain.plist")" = bplist00
ok "binary/nothing moved aside" test -z "$(find "$CFG" -name 'com.example.binaryDomain.plist.*')"
expect "binary/the old keys stay" 0 "Ada" "" -- read com.example.binaryDomain name
# prefs convert changes a domain's format; writes then keep the new one.
quiet convert -convert xml1 "$CFG/com.example.binaryDomain.plist"
quiet write com.example.binaryDomain more -int 6
ok "binary/converted to XML, a write keeps XML" test "$(head -c 5 "$CFG/com.example.binaryDomain.plist")" = "<?xml"
expect "binary/converted, keys stay" 0 "5" "" -- read com.example.binaryDomain added
# A string XML cannot carry (ESC) is stored: the domain's file turns binary.
quiet write com.example.escape plain ok
quiet write com.example.escape esc -string "$(printf 'a\033[0m')"
ok "binary/a control character makes the file binary" test "$(head -c 8 "$CFG/com.example.escape.plist")" = bplist00
expect "binary/the other key stays" 0 "ok" "" -- read com.example.escape plain
expect "binary/XML export refuses it" 1 "" "*" -- export com.example.escape -
ok "binary/the refusal says why" grep -q "XML 1.0 cannot carry" "$WORK/err"
# UIDs (keyed archives): their type and text, kept by writes.
cp "$HERE/../PrefsCoreTests/Fixtures/binary/uids.plist" "$CFG/com.example.archive.plist"
quiet write com.example.archive one '<dict><key>CF$UID</key><integer>3</integer></dict>'
expect "uid/read-type" 0 "Type is uid" "" -- read-type com.example.archive one
expect "uid/read D K" 0 "<CFKeyedArchiverUID>{value = 3}" "" -- read com.example.archive one
quiet write com.example.archive other -int 1
p read com.example.archive
ok "uid/read prints the UID as macOS does" grep -q '"<CFKeyedArchiverUID>{value = 1}"' "$WORK/out"
quiet convert -convert xml1 "$CFG/com.example.archive.plist"
ok "uid/XML holds CF\$UID" grep -q '<key>CF\$UID</key>' "$CFG/com.example.archive.plist"
p read com.example.archive
ok "uid/read back from XML as UIDs" grep -q '"<CFKeyedArchiverUID>{value = 4294967295}"' "$WORK/out"

# macOS's `defaults read -g AppleLanguages`: the user's languages, an array.
expect "defaults/read -g AppleLanguages answers" 0 "*" "" -- read -g AppleLanguages
ok "defaults/read -g AppleLanguages prints an array" grep -qx "(" "$WORK/out"
expect "defaults/read-type -g AppleLanguages" 0 "Type is array" "" -- read-type -g AppleLanguages
# What prefs read prints of data reads back as data (as GNUstep reads it).
quiet write com.example.datadesc d -data 00ff10
p read com.example.datadesc d
quiet write com.example.datadesc e "$(cat "$WORK/out")"
expect "data/a printed data description reads back as data" 0 "Type is data" "" -- read-type com.example.datadesc e

# -float stores a 32-bit float widened; reals are written as Apple writes them
quiet write com.example.reals f -float 32.3
quiet write com.example.reals d '<real>0.1</real>'
quiet write com.example.reals inf -float inf
p export com.example.reals -
ok "reals/-float 32.3 is 32.299999237060547" grep -q '<real>32.299999237060547</real>' "$WORK/out"
ok "reals/0.1 is written 0.10000000000000001" grep -q '<real>0.10000000000000001</real>' "$WORK/out"
ok "reals/an infinity stays one" grep -q '<real>+infinity</real>' "$WORK/out"

# convert: plutil's -lint, -convert and -p
CV=$WORK/convert
mkdir -p "$CV"
cp "$WORK/files/small-binary.plist" "$CV/b.plist"
cp "$GOLDEN/export-small.plist" "$CV/x.plist"
cp "$HERE/../PrefsCoreTests/Fixtures/binary/string_root.plist" "$CV/s.bin"
printf '{ a = 1; b = (x, "y z"); }' >"$CV/t.txt"
printf '{ a = 1; b = ' >"$CV/bad.txt"
expect "convert/-lint: OK for each" 0 "$CV/b.plist: OK
$CV/x.plist: OK
$CV/t.txt: OK" "" -- convert -lint "$CV/b.plist" "$CV/x.plist" "$CV/t.txt"
expect "convert/-lint: a bad file, exit 1, the others still OK" 1 "$CV/b.plist: OK" "*" -- convert -lint "$CV/bad.txt" "$CV/b.plist"
ok "convert/-lint: says which file and why" grep -q "^$CV/bad.txt: " "$WORK/err"
expect "convert/-lint: a missing file: 1" 1 "" "*" -- convert -lint "$CV/none.plist"
expect "convert/-lint without files: 64" 64 "" "*" -- convert -lint
expect "convert/-convert binary1 -o -" 0 "*" "" -- convert -convert binary1 -o - "$CV/x.plist"
ok "convert/-o - writes the binary file" cmp -s "$WORK/out" "$WORK/files/small-binary.plist"
expect "convert/-convert xml1 in place" 0 "" "" -- convert -convert xml1 "$CV/b.plist"
ok "convert/in place: Apple's XML" cmp -s "$CV/b.plist" "$GOLDEN/export-small.plist"
expect "convert/-convert binary1 -o FILE" 0 "" "" -- convert -convert binary1 -o "$CV/t.bin" "$CV/t.txt"
ok "convert/-o FILE: binary" test "$(head -c 8 "$CV/t.bin")" = bplist00
snapshot "$CV/bad.txt"
expect "convert/-convert: a bad file is left as it is, the others converted" 1 "" "*" -- convert -convert binary1 "$CV/bad.txt" "$CV/x.plist"
ok "convert/the bad file is untouched" unchanged "$CV/bad.txt"
ok "convert/the good file is converted" test "$(head -c 8 "$CV/x.plist")" = bplist00
expect "convert/-o with two files: 64" 64 "" "*" -- convert -convert xml1 -o "$CV/o" "$CV/x.plist" "$CV/t.txt"
expect "convert/-convert json: 64" 64 "" "*" -- convert -convert json "$CV/x.plist"
expect "convert/no mode: 64" 64 "" "*" -- convert
expect "convert/-currentHost: 64" 64 "" "*" -- -currentHost convert -lint "$CV/x.plist"
expect "convert/-p prints as read does" 0 '{
    a = 1;
    b =     (
        x,
        "y z"
    );
}' "" -- convert -p "$CV/t.txt"
expect "convert/-p a binary file's string" 0 "only a string" "" -- convert -p "$CV/s.bin"
expect_in "convert/-p - reads stdin" "$CV/t.bin" 0 "*" "" -- convert -p -
expect "convert/-p a bad file: 1" 1 "" "*" -- convert -p "$CV/bad.txt"

quiet export $D "$WORK/files/golden.plist"
quiet import com.example.copy "$WORK/files/golden.plist"
"$PREFS" read $D >"$WORK/original.txt"
p read com.example.copy
ok "import/an exported domain reads back identical" cmp -s "$WORK/out" "$WORK/original.txt"

I=com.example.import
quiet write $I kept yes
quiet write $I untouched -int 1
printf '{ a = 1; b = (x, "y z"); kept = no; }' >"$WORK/files/in.txt"
expect_in "import/- reads old-style text from stdin" "$WORK/files/in.txt" 0 "" "" -- import $I -
golden "import/sets every key, keeps the others" 0 read-import.txt -- read $I
expect_in "import/- reads XML from stdin" "$GOLDEN/export-small.plist" 0 "" "" -- import $I -
expect "import/XML values keep their types" 0 "Type is date" "" -- read-type $I when
printf '{ a = 1; b = ' >"$WORK/files/broken.txt"
refuse "import/file that does not parse: 1, unchanged" 1 "$CFG/$I.plist" -- import $I "$WORK/files/broken.txt"
printf '(a, b)' >"$WORK/files/array.txt"
refuse "import/array, not a dictionary: 1, unchanged" 1 "$CFG/$I.plist" -- import $I "$WORK/files/array.txt"
printf '<?xml version="1.0"?><plist version="1.0"><string>x</string></plist>' >"$WORK/files/string.plist"
refuse "import/XML string, not a dictionary: 1, unchanged" 1 "$CFG/$I.plist" -- import $I "$WORK/files/string.plist"
refuse "import/missing file: 1, unchanged" 1 "$CFG/$I.plist" -- import $I "$WORK/files/does-not-exist.plist"
refuse "import/empty stdin: 1, unchanged" 1 "$CFG/$I.plist" -- import $I - </dev/null
refuse "import/a directory: 1, unchanged" 1 "$CFG/$I.plist" -- import $I "$WORK/files/dir.plist"
printf '{ piped = 1; }' | "$PREFS" import com.example.piped /dev/stdin >"$WORK/out" 2>"$WORK/err"
rc=$?
check_run "import/a pipe named by path (/dev/stdin)" 0 "" ""
expect "import/what came through the pipe" 0 "1" "" -- read com.example.piped piped
printf '{ a = 1; }' >"$WORK/files/one.txt"
snapshot "$CFG/com.example.imported-absent.plist"
pin "$WORK/files/broken.txt" import com.example.imported-absent -
ok "import/refused import of an absent domain creates no file" unchanged "$CFG/com.example.imported-absent.plist"

#@group corrupt
# ---------------------------------------------------------------------------
# Files that do not parse: reported, left untouched by every verb

C=com.example.corrupt
CF=$CFG/$C.plist
mkdir -p "$CFG"
printf '{ a = 1; }' >"$WORK/files/one.txt"
printf '<?xml version="1.0"?><plist version="1.0"><dict><key>a</key><string>x' >"$CF"
refuse "corrupt/read D: 1, file untouched" 1 "$CF" -- read $C
refuse "corrupt/read D K: 1, file untouched" 1 "$CF" -- read $C a
refuse "corrupt/read-type: 1, file untouched" 1 "$CF" -- read-type $C a
refuse "corrupt/write D K V: 1, file untouched" 1 "$CF" -- write $C a y
refuse "corrupt/write D dictionary: 1, file untouched" 1 "$CF" -- write $C '{a = y;}'
refuse "corrupt/rename: 1, file untouched" 1 "$CF" -- rename $C a b
refuse "corrupt/delete key: 1, file untouched" 1 "$CF" -- delete $C a
refuse "corrupt/delete domain: 1, file untouched" 1 "$CF" -- delete $C
refuse "corrupt/import: 1, file untouched" 1 "$CF" -- import $C "$WORK/files/one.txt"
refuse "corrupt/export: 1, file untouched" 1 "$CF" -- export $C -
p read $C
ok "corrupt/the message names the file" grep -q "$CF" "$WORK/err"
rm -f "$CF"

#@group managed
# ---------------------------------------------------------------------------
# Managed (forced) values

mkdir -p "$PREFS_MANAGED_DIR"
printf '{ forced = 1; }' >"$PREFS_MANAGED_DIR/com.example.managed.plist"
refuse "managed/write of a forced key: 1, no file" 1 "$CFG/com.example.managed.plist" -- write com.example.managed forced -int 2
quiet write com.example.managed free -int 2
expect "managed/other keys are written" 0 "2" "" -- read com.example.managed free
printf '{ forced = 1; free = 3; }' >"$PREFS_MANAGED_DIR/com.example.managed.plist"
expect "managed/read of a key forced to another value says what programs get" 0 "2" \
    "prefs: free is forced by an administrator: programs get 3, not the value above" -- read com.example.managed free
expect "managed/read of a forced key the user lacks: 1, says what programs get" 1 "" \
    $'prefs: forced is forced by an administrator: programs get 1, not set here\nThe domain/default pair of (com.example.managed, forced) does not exist' \
    -- read com.example.managed forced
expect "managed/read of the domain names the forced keys" 0 $'{\n    free = 2;\n}' \
    $'prefs: forced is forced by an administrator: programs get 1, not set here\nprefs: free is forced by an administrator: programs get 3, not the value above' \
    -- read com.example.managed
ln -sf "$PREFS" "$WORK/defaults"
"$WORK/defaults" read com.example.managed free >"$WORK/out" 2>"$WORK/err"
rc=$?
check_run "managed/read as defaults: macOS's output only" 0 "2" ""
printf '{ forced = 1; }' >"$PREFS_MANAGED_DIR/com.example.managed.plist"

#@group global
# ---------------------------------------------------------------------------
# The global domain: -g, -globalDomain, NSGlobalDomain

quiet write -g gk -string global
ok "global/-g writes .GlobalPreferences.plist" test -f "$CFG/.GlobalPreferences.plist"
expect "global/read through NSGlobalDomain" 0 "global" "" -- read NSGlobalDomain gk
expect "global/read through -globalDomain" 0 "global" "" -- read -globalDomain gk
quiet write -globalDomain gk2 -int 2
quiet write NSGlobalDomain gk3 -bool no
expect "global/read -g" 0 $'{\n    gk = global;\n    gk2 = 2;\n    gk3 = 0;\n}' "" -- read -g
expect "global/absent key names NSGlobalDomain" 1 "" "The domain/default pair of (NSGlobalDomain, nokey) does not exist" -- read -g nokey
quiet delete -g gk3
expect "global/delete -g key" 1 "" "*" -- read -g gk3
# The man page's example, as written there.
expect "global/prefs(1) example: write -g AppleLocale fr_FR" 0 "" "" -- write -g AppleLocale fr_FR
expect "global/prefs(1) example: the value is in the global domain" 0 "fr_FR" "" -- read NSGlobalDomain AppleLocale
quiet delete -g AppleLocale

#@group currentHost
# ---------------------------------------------------------------------------
# -currentHost and -host

H=com.example.host
quiet -currentHost write $H hk hv
ok "currentHost/file is ByHost/<id>.<host id>.plist" test -f "$CFG/ByHost/$H.$HOSTID.plist"
expect "currentHost/read" 0 "hv" "" -- -currentHost read $H hk
expect "currentHost/not in the any-host domain" 1 "" "Domain $H does not exist" -- read $H
expect "currentHost/-host <this machine's id> reads it" 0 "hv" "" -- -host "$HOSTID" read $H hk
expect "currentHost/-host another machine: 64" 64 "" "*" -- -host not-this-machine read $H hk
expect "currentHost/-host \$(hostname) reads it" 0 "hv" "" -- -host "$(hostname)" read $H hk
expect "currentHost/domains lists current-host domains" 0 "$H" "" -- -currentHost domains
quiet -currentHost write -g ghk -int 1
ok "currentHost/-g with -currentHost is ByHost/.GlobalPreferences" test -f "$CFG/ByHost/.GlobalPreferences.$HOSTID.plist"
quiet -host "$HOSTID" rename $H hk hk2
expect "currentHost/rename with -host" 0 "hv" "" -- -currentHost read $H hk2
quiet -currentHost delete $H hk2
expect "currentHost/delete" 1 "" "Domain $H does not exist" -- -currentHost read $H

#@group path
# ---------------------------------------------------------------------------
# Domains given as plist paths

PF=$WORK/files/direct
printf '{ a = 1; }' >"$WORK/files/one.txt"
quiet write com.example.beside-paths k v # a domain for "domains" to list
quiet write "$PF" k v
ok "path/without .plist works on <path>.plist" test -f "$PF.plist"
ok "path/the file is an XML property list" grep -q '^<plist version="1.0">$' "$PF.plist"
expect "path/read with .plist" 0 "v" "" -- read "$PF.plist" k
inode1=$(stat -c %i "$PF.plist")
quiet write "$PF.plist" n -int 3
inode2=$(stat -c %i "$PF.plist")
ok "path/a write replaces the file (new inode)" test "$inode1" != "$inode2"
expect "path/read the whole file" 0 $'{\n    k = v;\n    n = 3;\n}' "" -- read "$PF"
expect "path/absent key names the path" 1 "" "The domain/default pair of ($PF, nokey) does not exist" -- read "$PF" nokey
expect "path/absent file" 1 "" "Domain $WORK/files/none.plist does not exist" -- read "$WORK/files/none.plist"
refuse "path/-currentHost with a path: 64" 64 "$PF.plist" -- -currentHost write "$PF" k w
printf 'not { a plist' >"$WORK/files/bad.plist"
refuse "path/read of a file that does not parse: 1, untouched" 1 "$WORK/files/bad.plist" -- read "$WORK/files/bad.plist"
refuse "path/write to a file that does not parse: 1, untouched" 1 "$WORK/files/bad.plist" -- write "$WORK/files/bad" k v
quiet rename "$PF" k k2
quiet delete "$PF" n
expect "path/rename and delete" 0 $'{\n    k2 = v;\n}' "" -- read "$PF"
expect_in "path/import into a file" "$WORK/files/one.txt" 0 "" "" -- import "$PF" -
expect "path/export a file" 0 "*" "" -- export "$PF" -
ok "path/export is XML" grep -q '<key>a</key>' "$WORK/out"
p domains
ok "path/domains does not list plist files" test "$rc" = 0 -a -n "$(cat "$WORK/out")" -a -z "$(grep direct "$WORK/out")"

#@group domains
# ---------------------------------------------------------------------------
# domains, read (all), find: in a configuration of their own

(
    export XDG_CONFIG_HOME=$WORK/config2
    "$PREFS" write com.find.two alphabet -int 1
    "$PREFS" write com.find.two none q
    "$PREFS" write com.find.one Name 'Alpha Beta'
    "$PREFS" write com.find.one other zzz
    "$PREFS" write com.find.one list -array x ALPHA
    "$PREFS" write com.find.one nested '{ k = { alphakey = 1; }; }'
    "$PREFS" write com.find.one number -int 42
    "$PREFS" write -g g nothing
    "$PREFS" write com.find.empty k v
    "$PREFS" delete com.find.empty
) >/dev/null
export XDG_CONFIG_HOME=$WORK/config2
expect "domains/sorted, comma-separated, one line, no global domain" 0 "com.find.one, com.find.two" "" -- domains
golden "read/every domain as one dictionary" 0 read-all.txt -- read
golden "find/case-insensitive keys and string values, exact message" 0 find-alpha.txt -- find ALPHA
expect "find/in one domain" 0 $'Found 1 keys in domain \'com.find.two\': {\n    none = q;\n}' "" -- find Q
expect "find/global domain is searched" 0 $'Found 1 keys in domain \'NSGlobalDomain\': {\n    g = nothing;\n}' "" -- find NOTHING
expect "find/nothing: exact message, 1" 1 "" "No domain, key, nor value containing 'qqqq'" -- find qqqq
expect "find/numbers are not searched" 1 "" "No domain, key, nor value containing '42'" -- find 42
printf 'garbage' >"$XDG_CONFIG_HOME/com.find.zbad.plist"
golden "read/every domain with one that does not parse: others printed, 1" 1 read-all.txt -- read
ok "read/the unreadable domain is reported on stderr" grep -q "com.find.zbad.plist" "$WORK/err"
expect "domains/lists a domain that does not parse" 0 "com.find.one, com.find.two, com.find.zbad" "*" -- domains
ok "read/every domain left the unreadable file untouched" test "$(cat "$XDG_CONFIG_HOME/com.find.zbad.plist")" = garbage
export XDG_CONFIG_HOME=$WORK/config3
expect "domains/none: status 0" 0 "*" "" -- domains
ok "domains/none: one empty line" test "$(od -An -c "$WORK/out" | tr -d ' ')" = '\n'
expect "find/no domains at all" 1 "" "No domain, key, nor value containing 'x'" -- find x
export XDG_CONFIG_HOME=$CFG

#@group capi
# ---------------------------------------------------------------------------
# The C API reads what prefs wrote, and prefs reads what the C API wrote

if build_capi; then
    pass "capi/test program builds against the installed library"
    X=com.example.capi
    quiet write $X s -string 'from prefs'
    quiet write $X i -int 9223372036854775807
    quiet write $X r -float 0.5
    quiet write $X b -bool yes
    quiet write $X d -date 2026-01-02T03:04:05Z
    quiet write $X x -data cafe
    quiet write $X a -array one -int 2
    quiet write $X m -dict k v
    capi() { "$WORK/capi" "$@" >"$WORK/out" 2>"$WORK/err"; rc=$?; }
    capi_expect() {
        local name=$1 want=$2
        shift 2
        capi "$@"
        if [ "$rc" = 0 ] && same "$WORK/out" "$want"; then pass "$name"; else fail "$name" "status $rc: $(head -c 200 "$WORK/out")"; fi
    }
    capi_expect "capi/reads a string" 'string "from prefs"' get $X s
    capi_expect "capi/reads an integer" "integer 9223372036854775807" get $X i
    capi_expect "capi/reads a real" "real 0.5" get $X r
    capi_expect "capi/reads a boolean" "boolean 1" get $X b
    capi_expect "capi/reads a date" 'date "2026-01-02 03:04:05 +0000"' get $X d
    capi_expect "capi/reads data" "data {length = 2, bytes = 0xcafe}" get $X x
    capi_expect "capi/reads an array" $'array (\n    one,\n    2\n)' get $X a
    capi_expect "capi/reads a dictionary" $'dictionary {\n    k = v;\n}' get $X m
    quiet write -g cg -int 5
    capi_expect "capi/reads the global domain" "integer 5" get NSGlobalDomain cg
    quiet -currentHost write $X hostkey hostvalue
    capi_expect "capi/reads a -currentHost value as kPrefsCurrentHost" "string hostvalue" get $X hostkey current-host
    capi get $X hostkey
    if [ "$rc" = 1 ]; then pass "capi/-currentHost value is not in the any-host domain"; else fail "capi/-currentHost value is not in the any-host domain" "status $rc"; fi
    quiet write "$CFG/com.example.bypath" viapath -int 8
    capi_expect "capi/a plist path under XDG_CONFIG_HOME is that domain" "integer 8" get com.example.bypath viapath

    capi put com.example.fromc
    if [ "$rc" = 0 ]; then pass "capi/stores values and synchronizes"; else fail "capi/stores values and synchronizes" "status $rc: $(cat "$WORK/err")"; fi
    golden "capi/prefs reads what C stored" 0 read-fromc.txt -- read com.example.fromc
    expect "capi/string raw" 0 "from C, with spaces" "" -- read com.example.fromc cstring
    for pair in cstring:string cint:integer creal:float cbool:boolean cdate:date cdata:data carray:array cdict:dictionary; do
        expect "capi/read-type ${pair%%:*}" 0 "Type is ${pair#*:}" "" -- read-type com.example.fromc "${pair%%:*}"
    done
    quiet write com.example.fromc cint -int 43
    capi_expect "capi/C reads prefs' change of a C value" "integer 43" get com.example.fromc cint
else
    fail "capi/test program builds against the installed library" "$(head -c 300 "$WORK/cc.log")"
fi

#@group watch
# ---------------------------------------------------------------------------
# watch: each change as it happens

wait_for() { # FILE PATTERN — up to 10 s
    local i=0
    while [ $i -lt 100 ]; do
        grep -qxF -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
V=com.example.watch
"$PREFS" watch $V >"$WORK/watch.out" 2>"$WORK/watch.err" &
WATCHERS+=($!)
"$PREFS" watch $V b >"$WORK/watch-b.out" 2>"$WORK/watch-b.err" &
WATCHERS+=($!)
sleep 0.5
"$PREFS" write $V a -int 1
ok "watch/prints an added key" wait_for "$WORK/watch.out" "a = 1;"
"$PREFS" write $V b -array x
ok "watch/prints a changed container" wait_for "$WORK/watch.out" ");"
"$PREFS" write $V b -int 2
ok "watch/prints a new value" wait_for "$WORK/watch.out" "b = 2;"
"$PREFS" delete $V a
ok "watch/prints a deleted key" wait_for "$WORK/watch.out" "a deleted"
"$PREFS" write $V c last
wait_for "$WORK/watch.out" "c = last;"
ok "watch/whole output" test "$(cat "$WORK/watch.out")" = $'a = 1;\nb = (\n    x\n);\nb = 2;\na deleted\nc = last;'
ok "watch <key>/only that key" test "$(cat "$WORK/watch-b.out")" = $'b = (\n    x\n);\nb = 2;'
kill -INT "${WATCHERS[0]}"
wait "${WATCHERS[0]}"
status=$?
if [ "$status" = 0 ]; then pass "watch/ends with status 0 when interrupted"; else fail "watch/ends with status 0 when interrupted" "status $status"; fi
ok "watch/nothing on stderr" test ! -s "$WORK/watch.err"
"$PREFS" watch "$WORK/files/watched" >"$WORK/watch-file.out" 2>&1 &
WATCHERS+=($!)
"$PREFS" watch -g gw >"$WORK/watch-g.out" 2>&1 &
WATCHERS+=($!)
sleep 0.5
"$PREFS" write "$WORK/files/watched.plist" f -string 'in a file'
ok "watch/a plist-path domain" wait_for "$WORK/watch-file.out" 'f = "in a file";'
printf '{ f = edited; }' >"$WORK/files/watched.tmp" && mv "$WORK/files/watched.tmp" "$WORK/files/watched.plist"
ok "watch/a file replaced by hand" wait_for "$WORK/watch-file.out" 'f = edited;'
"$PREFS" write -g gw -int 9
ok "watch/the global domain" wait_for "$WORK/watch-g.out" 'gw = 9;'
ok "watch/a plist-path domain leaves its directory alone" test "$(ls -A "$WORK/files" | grep -c ByHost)" = 0
expect "watch/invalid domain: 1" 1 "" "*" -- watch 'a/b'
printf 'garbage' >"$CFG/com.example.watchbad.plist"
refuse "watch/domain that does not parse: 1" 1 "$CFG/com.example.watchbad.plist" -- watch com.example.watchbad

#@group readonly
# ---------------------------------------------------------------------------
# A command that only reads creates nothing: no directory, no file, in a
# fresh HOME (which stays empty) nor in one with domains and a schema (every
# name, kind, size and time kept), nor beside a plist file named by path.
# watch runs for a moment and is interrupted. The runtime directory, where
# any process may make the change counter, is outside the tree looked at.

RO=$WORK/ro
mkdir -p "$RO/run" "$RO/files"
chmod 700 "$RO/run"
# ro ARGS... — prefs ARGS with HOME=$RO/home and every location under it.
RO_ENV=(env -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u XDG_DATA_DIRS -u XDG_CACHE_HOME -u XDG_STATE_HOME
    HOME="$RO/home" XDG_RUNTIME_DIR="$RO/run" PREFS_SYSTEM_DIR="$RO/home/system" PREFS_MANAGED_DIR="$RO/home/managed")
ro() { "${RO_ENV[@]}" "$PREFS" "$@"; }
ro_tree() { find "$RO/home" "$RO/files" -printf '%p %y %s %m %T@ %C@\n' | LC_ALL=C sort; }
# ro_check STATE — each read-only command, the tree compared before and after.
ro_check() {
    local state=$1 cmd pid
    local -a args
    while IFS= read -r cmd; do
        eval "args=($cmd)"
        ro_tree >"$WORK/ro.before"
        if [ "${args[0]}" = watch ] || [ "${args[1]:-}" = watch ]; then
            # Started directly (not through a function), so that $! is
            # prefs itself and gets the interrupt.
            "${RO_ENV[@]}" "$PREFS" "${args[@]}" >/dev/null 2>&1 </dev/null &
            pid=$!
            WATCHERS+=("$pid")
            sleep 1.5
            kill -INT "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
        else
            ro "${args[@]}" >/dev/null 2>&1 </dev/null
        fi
        ro_tree >"$WORK/ro.after"
        if cmp -s "$WORK/ro.before" "$WORK/ro.after"; then
            pass "read-only/$state: prefs $cmd creates nothing"
        else
            fail "read-only/$state: prefs $cmd creates nothing" "$(diff "$WORK/ro.before" "$WORK/ro.after" | grep '^[<>]' | sed "s|$RO/||")"
        fi
    done <<'CMDS'
read
read com.example.ro
read com.example.ro k
read -g
read-type com.example.ro k
-currentHost read com.example.ro
-host elsewhere read com.example.ro
domains
-currentHost domains
find k
export com.example.ro -
export com.example.ro - -format binary1
explain com.example.ro
explain com.example.ro k
schema list
schema show com.example.ro
schema describe com.example.ro k
schema c com.example.ro
schema swift com.example.ro
schema check "$RO/files/schema.plist"
sync status
sync status com.example.ro
profile list
convert -lint "$RO/files/x.plist"
convert -p "$RO/files/x.plist"
read "$RO/files/x.plist"
read "$RO/files/x"
ui com.example.ro
help
watch com.example.ro
watch com.example.ro k
-currentHost watch com.example.ro
watch -g
watch "$RO/files/x.plist"
CMDS
}
printf '{ k = v; }' >"$RO/files/x.plist"
printf '{ PreferenceSpecifiers = ( { Type = PSTextFieldSpecifier; Key = k; DefaultValue = d; } ); }' >"$RO/files/schema.plist"
mkdir -p "$RO/home"
ro_check "a fresh HOME"
ok "read-only/a fresh HOME stays empty" test -z "$(ls -A "$RO/home")"
# Domains, the global domain and an installed schema; no ByHost directory.
ro write com.example.ro k -int 1 >/dev/null 2>&1 && ro write -g g -int 1 >/dev/null 2>&1 \
    || fail "setup: domains for the read-only checks" "prefs write failed"
mkdir -p "$RO/home/.local/share/prefs/schemas"
cp "$RO/files/schema.plist" "$RO/home/.local/share/prefs/schemas/com.example.ro.plist"
ro_check "a HOME with domains"
ok "read-only/no ByHost directory made" test -z "$(find "$RO/home" -name ByHost)"

#@group defaults
# ---------------------------------------------------------------------------
# The defaults name ($PREFIX/libexec/prefs/defaults): the same command, for
# tools written for macOS; -date in local time; read and read-type as
# macOS prints them (what Ansible's osx_defaults parses).

DEFAULTS=$PREFIX/libexec/prefs/defaults
ok "defaults/installed in libexec/prefs, leading to bin/prefs" test "$(readlink -f "$DEFAULTS")" = "$(readlink -f "$PREFS")"
dx() { "$DEFAULTS" "$@" >"$WORK/out" 2>"$WORK/err"; rc=$?; }
dexpect() {
    local name=$1 status=$2 want_out=$3 want_err=$4
    shift 5
    dx "$@"
    check_run "$name" "$status" "$want_out" "$want_err"
}
DD=com.example.defaultsname
dexpect "defaults/write -int" 0 "" "" -- write $DD Count -int 42
dexpect "defaults/read an integer" 0 "42" "" -- read $DD Count
dexpect "defaults/read-type integer" 0 "Type is integer" "" -- read-type $DD Count
dexpect "defaults/write -bool TRUE" 0 "" "" -- write $DD On -bool TRUE
dexpect "defaults/read a boolean: 1" 0 "1" "" -- read $DD On
dexpect "defaults/read-type boolean" 0 "Type is boolean" "" -- read-type $DD On
dexpect "defaults/write -float" 0 "" "" -- write $DD Ratio -float 2.75
dexpect "defaults/read a float" 0 "2.75" "" -- read $DD Ratio
dexpect "defaults/read-type float" 0 "Type is float" "" -- read-type $DD Ratio
dexpect "defaults/write -float 0.1 (a 32-bit float)" 0 "" "" -- write $DD Tenth -float 0.1
dexpect "defaults/read it as macOS prints it: 16 digits" 0 "0.1000000014901161" "" -- read $DD Tenth
dexpect "defaults/write -string" 0 "" "" -- write $DD Title -string 'a "quoted" title'
dexpect "defaults/read a string: raw" 0 'a "quoted" title' "" -- read $DD Title
dexpect "defaults/write -array" 0 "" "" -- write $DD List -array alpha "b c" 'd"e'
dexpect "defaults/read an array" 0 $'(\n    alpha,\n    "b c",\n    "d\\"e"\n)' "" -- read $DD List
dexpect "defaults/read-type array" 0 "Type is array" "" -- read-type $DD List
dexpect "defaults/-date YYYY-MM-DD HH:MM:SS (UTC zone)" 0 "" "" -- write $DD When -date "2026-03-04 05:06:07"
dexpect "defaults/read a date: unquoted, +0000" 0 "2026-03-04 05:06:07 +0000" "" -- read $DD When
dexpect "defaults/read-type date" 0 "Type is date" "" -- read-type $DD When
TZ=Asia/Tokyo dexpect "defaults/-date is local time (Asia/Tokyo, +0900)" 0 "" "" -- write $DD Tokyo -date "2026-03-04 05:06:07"
dexpect "defaults/... read in UTC" 0 "2026-03-03 20:06:07 +0000" "" -- read $DD Tokyo
TZ=Europe/Paris dexpect "defaults/-date in summer time (Europe/Paris, +0200)" 0 "" "" -- write $DD Paris -date "2026-07-01 12:00:00"
dexpect "defaults/... read in UTC (10:00)" 0 "2026-07-01 10:00:00 +0000" "" -- read $DD Paris
TZ=Europe/Paris expect "prefs takes the local form too" 0 "" "" -- write $DD Paris2 -date "2026-01-15 12:00:00"
expect "... read in UTC (11:00, winter)" 0 "2026-01-15 11:00:00 +0000" "" -- read $DD Paris2
dexpect "defaults/-date refuses a bad local date" 1 "" "*" -- write $DD Bad -date "2026-02-30 00:00:00"
dexpect "defaults/read-type of an absent key: exit 1" 1 "" "The domain/default pair of ($DD, Nope) does not exist" -- read-type $DD Nope
dexpect "defaults/delete a key" 0 "" "" -- delete $DD Count
dexpect "defaults/read a deleted key: exit 1" 1 "" "*" -- read $DD Count
dx help
ok "defaults/usage names defaults" test "$(head -n 1 "$WORK/out")" = "usage: defaults [-currentHost | -host <hostname>] <command>"

#@group profile
# ---------------------------------------------------------------------------
# Configuration profiles: prefs profile install | remove | list, with the
# XML fixture Tests/cli/profiles/fleet.mobileconfig and a binary copy of
# fleet-v2.mobileconfig made here. Effective values through the C API
# (capi app: PrefsCopyAppValue and PrefsAppValueIsForced).
[ -x "$WORK/capi" ] || build_capi

MAN=$PREFS_MANAGED_DIR
PROFILES=$HERE/profiles
PID=com.example.fleet.profile
EDITOR_DROPIN=$MAN/com.example.editor.d/$PID.plist
VIEWER_DROPIN=$MAN/com.example.viewer.d/$PID.plist
expect "profile/list with none installed: empty" 0 "" "" -- profile list
expect "profile/install an XML profile" 0 "Installed $PID for everyone: com.example.editor, com.example.viewer" \
    $'prefs: not applied: payload 1 (com.apple.ManagedClient.preferences): com.example.editor: Set-Once settings (only Forced ones are applied)\nprefs: not applied: payload 3 (com.apple.wifi.managed): not a preference payload' \
    -- profile install "$PROFILES/fleet.mobileconfig"
ok "profile/one drop-in per domain, named after PayloadIdentifier" test -f "$EDITOR_DROPIN" -a -f "$VIEWER_DROPIN"
ok "profile/drop-ins are XML, 0644" test "$(head -c 5 "$EDITOR_DROPIN")" = "<?xml" -a "$(stat -c %a "$EDITOR_DROPIN")" = 644
capi_app "profile/Forced mcx_preference_settings applied, forced" "integer 16 (forced)" com.example.editor FontSize
capi_app "profile/a later payload wins (custom settings over mcx)" "string dark (forced)" com.example.editor Theme
capi_app "profile/custom-settings payload applied" "boolean 1 (forced)" com.example.editor Autosave
capi_app "profile/second domain" "real 1.5 (forced)" com.example.viewer Zoom
capi_app "profile/Set-Once not applied" "absent" com.example.editor Tips
refuse "profile/a forced key cannot be written" 1 "$CFG/com.example.editor.plist" -- write com.example.editor FontSize -int 10
expect "profile/list" 0 "$PID (everyone): com.example.editor, com.example.viewer — Fleet editor settings" "" -- profile list
"$PREFS" convert -convert binary1 -o "$WORK/files/fleet-v2.mobileconfig" "$PROFILES/fleet-v2.mobileconfig"
ok "profile/binary fixture made" test "$(head -c 8 "$WORK/files/fleet-v2.mobileconfig")" = bplist00
expect "profile/reinstall from a binary profile" 0 "Installed $PID for everyone: com.example.editor" "*" -- profile install "$WORK/files/fleet-v2.mobileconfig"
ok "profile/reinstall removes the domain the profile no longer has" test ! -e "$VIEWER_DROPIN" -a ! -e "$MAN/com.example.viewer.d"
capi_app "profile/reinstall replaces the values" "integer 18 (forced)" com.example.editor FontSize
capi_app "profile/reinstall: a domain no longer managed" "absent" com.example.viewer Zoom
expect "profile/list after reinstall" 0 "$PID (everyone): com.example.editor — Fleet editor settings, v2" "" -- profile list
printf '<?xml version="1.0"?><plist version="1.0"><dict><key>PayloadIdentifier</key><string>x</string>' >"$WORK/files/broken.mobileconfig"
managed_state() { find "$MAN" -printf '%p %s %T@\n' | sort; }
before_broken=$(managed_state)
refuse "profile/a profile that does not parse writes nothing" 1 "$EDITOR_DROPIN" -- profile install "$WORK/files/broken.mobileconfig"
printf '\x30\x82\x01\x00' >"$WORK/files/signed.mobileconfig"
refuse "profile/a signed profile is refused, nothing written" 1 "$EDITOR_DROPIN" -- profile install "$WORK/files/signed.mobileconfig"
ok "profile/... the managed directory exactly as it was" test "$(managed_state)" = "$before_broken"
expect "profile/remove" 0 "Removed $PID" "" -- profile remove $PID
ok "profile/remove deletes the drop-ins and the receipt" test -z "$(find "$MAN" -name "$PID.plist")"
capi_app "profile/after remove, nothing forced" "absent" com.example.editor FontSize
expect "profile/remove again: not installed, exit 1" 1 "" "Profile $PID is not installed for everyone" -- profile remove $PID
expect "profile/install for one user" 0 "Installed $PID for $(id -un): com.example.editor, com.example.viewer" "*" -- profile install -user "$(id -un)" "$PROFILES/fleet.mobileconfig"
ok "profile/... in that user's managed directory" test -f "$MAN/$(id -un)/com.example.editor.d/$PID.plist"
capi_app "profile/... forced for that user" "integer 16 (forced)" com.example.editor FontSize
expect "profile/list shows the user's" 0 "$PID (user $(id -un)): com.example.editor, com.example.viewer — Fleet editor settings" "" -- profile list
expect "profile/remove for one user" 0 "Removed $PID" "" -- profile remove -user "$(id -un)" $PID
expect "profile/unknown subcommand: 64" 64 "" "*" -- profile frobnicate
#@group schema
# Installed schemas: explain, schema show|check|c|swift
[ -x "$WORK/capi" ] || build_capi

export XDG_DATA_HOME=$WORK/data XDG_DATA_DIRS=$WORK/sysdata
SCHEMAS=$XDG_DATA_HOME/prefs/schemas
mkdir -p "$SCHEMAS" "$WORK/sysdata/prefs/schemas"
cp "$HERE"/../../examples/schema/*.plist "$SCHEMAS/"
N=com.example.notes
expect "explain/schema defaults, no call" 0 "*" "" -- explain $N
ok "explain/schema defaults: every key, child pane too" test "$(grep '(schema)$' "$WORK/out")" = $'DefaultFolder = Notes (schema)\nFontSize = 13 (schema)\nLineSpacing = 1.2 (schema)\nSpellCheck = 1 (schema)\nTheme = light (schema)'
quiet write $N FontSize -int 20
expect "explain/a user value shadows the schema" 0 $'FontSize = 20 (app)\n  shadowed: 13 (schema)' "" -- explain $N FontSize
expect "explain/read sees the user value" 0 "20" "" -- read $N FontSize
quiet write -g FontSize -int 16
quiet -currentHost write $N FontSize -int 18
expect "explain/every layer in order" 0 $'FontSize = 18 (app-currenthost)\n  shadowed: 20 (app)\n  shadowed: 16 (global)\n  shadowed: 13 (schema)' "" -- explain $N FontSize
quiet -currentHost delete $N FontSize
quiet delete -g FontSize
mkdir -p "$PREFS_MANAGED_DIR"
printf '{ Theme = dark; }' >"$PREFS_MANAGED_DIR/$N.plist"
expect "explain/forced" 0 $'Theme = dark (managed, forced)\n  shadowed: light (schema)' "" -- explain $N Theme
rm -f "$PREFS_MANAGED_DIR/$N.plist"
expect "explain/absent key: 1" 1 "" "The domain/default pair of ($N, Nope) does not exist" -- explain $N Nope
expect "explain/usage: 64" 64 "" "*" -- explain
expect "explain/languages when asked" 0 "*" "" -- explain $N AppleLocale
if grep -q "^AppleLocale = .* (language)$" "$WORK/out"; then pass "explain/derived locale is a language layer"; else fail "explain/derived locale is a language layer" "$(cat "$WORK/out")"; fi

p schema show $N
if [ "$rc" = 0 ] && grep -q "^FontSize$" "$WORK/out" && grep -q "^  type: PSSliderSpecifier (8 ... 72)$" "$WORK/out" \
    && grep -q "^  description: Points, for the text of every note.$" "$WORK/out" && grep -q "^  default: light$" "$WORK/out"; then
    pass "schema show/keys, types, defaults, titles, descriptions (child pane too)"
else
    fail "schema show/keys, types, defaults, titles, descriptions (child pane too)" "$(cat "$WORK/out" "$WORK/err")"
fi
expect "schema show/no schema: 1" 1 "" "*" -- schema show com.example.noschema
expect "schema check/a good schema" 0 "$SCHEMAS/$N.plist: OK" "" -- schema check "$SCHEMAS/$N.plist"
cat >"$WORK/bad-schema.plist" <<'BAD'
<plist version="1.0"><dict><key>PreferenceSpecifiers</key><array>
<dict><key>Type</key><string>PSSliderSpecifier</string><key>Key</key><string>S</string><key>DefaultValue</key><integer>99</integer>
 <key>MinimumValue</key><integer>0</integer><key>MaximumValue</key><integer>10</integer></dict>
<dict><key>Type</key><string>PSMultiValueSpecifier</string><key>Key</key><string>M</string><key>DefaultValue</key><string>z</string>
 <key>Values</key><array><string>a</string><string>b</string></array><key>Titles</key><array><string>A</string><string>B</string></array></dict>
<dict><key>Type</key><string>PSToggleSwitchSpecifier</string><key>Key</key><string>T</string><key>DefaultValue</key><string>maybe</string></dict>
</array></dict></plist>
BAD
expect "schema check/every problem, exit 1" 1 "" "*" -- schema check "$WORK/bad-schema.plist"
ok "schema check/range, listed values, type" test "$(grep -c -e 'S: DefaultValue 99 is above MaximumValue' -e 'M: DefaultValue z is not one of Values' -e 'T: DefaultValue of a toggle switch is a string, not a boolean' "$WORK/err")" = 3
printf 'garbage <<<' >"$SCHEMAS/com.example.broken.plist"
expect "schema/a schema that does not parse is reported: 1" 1 "" "*" -- schema show com.example.broken
p read com.example.notes FontSize
if [ "$rc" = 0 ]; then pass "schema/a broken schema of another app harms no reader"; else fail "schema/a broken schema of another app harms no reader" "$rc"; fi
p explain com.example.broken
if grep -q "com.example.broken.plist" "$WORK/err"; then pass "explain/a broken schema is reported, not fatal"; else fail "explain/a broken schema is reported, not fatal" "rc $rc: $(cat "$WORK/err")"; fi
rm -f "$SCHEMAS/com.example.broken.plist"

# schema c: the header compiles pedantic, its getters and setters work.
p schema c $N
cp "$WORK/out" "$WORK/notes.h"
p schema c "$SCHEMAS/$N.plist"
ok "schema c/from the domain or the file: the same code but the source line" test "$(tail -n +2 "$WORK/out")" = "$(tail -n +2 "$WORK/notes.h")"
# shellcheck disable=SC2086
if $CC -std=c99 -Wall -Wextra -pedantic -Werror -I"$WORK" -o "$WORK/schema_header" "$HERE/schema_header.c" \
        $(pkg-config --cflags --libs prefs) -Wl,-rpath,"$(pkg-config --variable=libdir prefs)" 2>"$WORK/cc.log"; then
    pass "schema c/the header compiles with -std=c99 -Wall -Wextra -pedantic -Werror"
    quiet delete $N
    ok "schema c/getters: defaults when nothing is stored" "$WORK/schema_header" defaults
    quiet write $N SpellCheck -bool NO
    quiet write $N FontSize -int 30
    quiet write $N LineSpacing -float 2.5
    quiet write $N Theme dark
    quiet write $N DefaultFolder Inbox
    ok "schema c/getters: the stored values" "$WORK/schema_header" stored
    # The schema refuses these writes: a hand edit stores them.
    cat >"$CFG/$N.plist" <<'BADVALUES'
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>DefaultFolder</key><integer>3</integer><key>FontSize</key><integer>100</integer>
<key>LineSpacing</key><string>wide</string><key>SpellCheck</key><string>perhaps</string><key>Theme</key><string>sepia</string></dict></plist>
BADVALUES
    ok "schema c/getters: defaults for invalid values (type, range, list)" "$WORK/schema_header" invalid
    ok "schema c/setters refuse what the schema refuses" "$WORK/schema_header" refuse
    ok "schema c/setters" "$WORK/schema_header" set
    expect "schema c/setters stored what prefs reads" 0 '{
    DefaultFolder = Drafts;
    FontSize = 40;
    LineSpacing = 1.5;
    SpellCheck = 0;
    Theme = system;
}' "" -- read $N
else
    fail "schema c/the header compiles with -std=c99 -Wall -Wextra -pedantic -Werror" "$(head -c 600 "$WORK/cc.log")"
fi
cat >"$WORK/odd.plist" <<'ODD'
<plist version="1.0"><dict><key>PreferenceSpecifiers</key><array>
<dict><key>Type</key><string>PSTextFieldSpecifier</string><key>Key</key><string>a*/b"c\d??=</string>
 <key>DefaultValue</key><string>x"*/
\y é</string><key>Title</key><string>*/ t</string></dict>
<dict><key>Type</key><string>PSMultiValueSpecifier</string><key>Key</key><string>a-b</string>
 <key>DefaultValue</key><array><integer>1</integer></array></dict>
<dict><key>Type</key><string>PSTextFieldSpecifier</string><key>Key</key><string>9</string><key>DefaultValue</key><data>AP8=</data></dict>
<dict><key>Key</key><string>n</string><key>DefaultValue</key><integer>-9223372036854775808</integer></dict>
</array></dict></plist>
ODD
p schema c "$WORK/odd.plist"
cp "$WORK/out" "$WORK/odd.h"
printf '#include "odd.h"\nint main(void) { PrefsRelease(odd_get_a_b()); PrefsRelease(odd_get_k_9()); free(odd_get_a__b_c_d___()); return odd_get_n() < 0 ? 0 : 1; }\n' >"$WORK/odd.c"
# shellcheck disable=SC2086
if $CC -std=c99 -Wall -Wextra -pedantic -Werror -I"$WORK" -o "$WORK/odd" "$WORK/odd.c" \
        $(pkg-config --cflags --libs prefs) -Wl,-rpath,"$(pkg-config --variable=libdir prefs)" 2>"$WORK/cc.log"; then
    pass "schema c/odd keys and texts still compile"
    ok "schema c/odd keys: getters run" "$WORK/odd"
else
    fail "schema c/odd keys and texts still compile" "$(head -c 600 "$WORK/cc.log")"
fi
# Hostile texts in a title, a description, a key and a default: comment
# openers and closers, a trigraph, a backslash at the end of a line, a
# newline, a bidirectional override. The header compiles with -Werror
# and the getter returns the default byte for byte.
hostile_schema "$WORK/hostile.plist"
p schema c "$WORK/hostile.plist"
cp "$WORK/out" "$WORK/hostile.h"
printf '#include "hostile.h"\n#include <stdio.h>\nint main(void) {\n    char *s = hostile_get_Hostile();\n    if (s == NULL) return 1;\n    fputs(s, stdout);\n    free(s);\n    return 0;\n}\n' >"$WORK/hostile.c"
# shellcheck disable=SC2086
if [ "$rc" = 0 ] && $CC -std=c99 -Wall -Wextra -pedantic -Werror -I"$WORK" -o "$WORK/hostile" "$WORK/hostile.c" \
        $(pkg-config --cflags --libs prefs) -Wl,-rpath,"$(pkg-config --variable=libdir prefs)" 2>"$WORK/cc.log"; then
    pass "schema c/comment markers, trigraphs, backslashes, newlines in texts: compiles with -Werror"
    "$WORK/hostile" >"$WORK/hostile.out"
    ok "schema c/... and the getter returns the default byte for byte" test "$(cat "$WORK/hostile.out"; echo .)" = "$HOSTILE."
else
    fail "schema c/comment markers, trigraphs, backslashes, newlines in texts: compiles with -Werror" "rc $rc: $(head -c 600 "$WORK/cc.log")"
fi
expect "schema swift/typed keys" 0 "// Generated by \`prefs schema swift\` from $SCHEMAS/$N.plist: do not edit.
import PrefsCore

extension Preferences.Keys {
    /// Check spelling
    /// Underline misspelled words while typing.
    /// Accepts a boolean.
    static let \`spellCheck\` = Preferences.Key<Bool>(\"SpellCheck\", default: true, accepts: { \$0.kind == .boolean })
    /// Folder for new notes
    /// Accepts a string.
    static let \`defaultFolder\` = Preferences.Key<String>(\"DefaultFolder\", default: \"Notes\", accepts: { \$0.kind == .string })
    /// Font size
    /// Points, for the text of every note.
    /// Accepts an integer from 8 to 72.
    static let \`fontSize\` = Preferences.Key<Int>(\"FontSize\", default: 13, accepts: { guard let x = \$0.integerValue.map({ Double(\$0) }) else { return false }; return x >= 8.0 && x <= 72.0 })
    /// Theme
    /// Accepts one of light, dark, system.
    static let \`theme\` = Preferences.Key<String>(\"Theme\", default: \"light\", accepts: { ([PropertyList.string(\"light\"), PropertyList.string(\"dark\"), PropertyList.string(\"system\")] as [PropertyList]).contains(\$0) })
    /// Line spacing
    /// Accepts a number from 1 to 3.
    static let \`lineSpacing\` = Preferences.Key<Double>(\"LineSpacing\", default: 1.2, accepts: { guard let x = \$0.integerValue.map({ Double(\$0) }) ?? \$0.realValue else { return false }; return x >= 1.0 && x <= 3.0 })
}" "" -- schema swift $N
# One schema with a specifier of every type: what each writer refuses,
# what each reader answers for hand-edited values, list and describe.
E=com.example.every
cp "$HERE/../schemas/$E.plist" "$SCHEMAS/"
expect "schema list/application, file, keys" 0 "$E  $SCHEMAS/$E.plist  11 keys
$N  $SCHEMAS/$N.plist  5 keys" "" -- schema list
# A chain of 3,000 child panes is more files than a schema may span
# (256): reported as unusable, on a 256 KB stack too (the walk does not
# recurse), the files of the chain are not listed as schemas, and the other
# schemas still are.
CHAIN=com.example.chain
i=0
while [ $i -lt 3000 ]; do
    if [ $i = 0 ]; then f=$CHAIN; else f=c$i; fi
    if [ $i -lt 2999 ]; then pane="<dict><key>Type</key><string>PSChildPaneSpecifier</string><key>File</key><string>c$((i + 1))</string></dict>"; else pane=; fi
    printf '<plist version="1.0"><dict><key>PreferenceSpecifiers</key><array><dict><key>Key</key><string>K%d</string><key>DefaultValue</key><integer>%d</integer></dict>%s</array></dict></plist>' \
        $i $i "$pane" >"$SCHEMAS/$f.plist"
    i=$((i + 1))
done
expect "schema list/a chain of too many panes is unusable, the others are listed" 0 "$CHAIN  $SCHEMAS/$CHAIN.plist  unusable: $SCHEMAS/$CHAIN.plist: more than 256 files with its child panes (at most 256 are read)
$E  $SCHEMAS/$E.plist  11 keys
$N  $SCHEMAS/$N.plist  5 keys" "" -- schema list
(ulimit -s 256 && exec "$PREFS" explain $CHAIN) >"$WORK/out" 2>"$WORK/err"
rc=$?
if [ "$rc" -lt 128 ] && grep -q "more than 256 files" "$WORK/err"; then
    pass "explain/a chain of too many panes is reported, on a small stack too"
else
    fail "explain/a chain of too many panes is reported, on a small stack too" "rc $rc: $(head -c 300 "$WORK/err")"
fi
if [ -x "$WORK/capi" ]; then
    (ulimit -s 256 && exec "$WORK/capi" app $CHAIN K0) >"$WORK/out" 2>"$WORK/err"
    rc=$?
    ok "schema C read/a chain of too many panes: no value, no crash" test "$rc" -lt 128 -a "$(cat "$WORK/out")" = "absent"
fi
rm -f "$SCHEMAS/$CHAIN.plist" "$SCHEMAS"/c[0-9]*.plist
expect "schema describe/a slider" 0 "Size
  specifier: PSSliderSpecifier
  type: integer
  title: Font size
  description: Points, for the text of every note.
  default: 13
  range: 8 ... 72
  accepts: an integer from 8 to 72
  file: $SCHEMAS/$E.plist" "" -- schema describe $E Size
expect "schema describe/a radio group: values with their titles" 0 "Level
  specifier: PSRadioGroupSpecifier
  type: integer
  title: Level
  default: 1
  values:
    1  Low
    2  Middle
    3  High
  accepts: one of 1, 2, 3
  file: $SCHEMAS/$E.plist" "" -- schema describe $E Level
expect "schema describe/a key whose default breaks its slider binds nothing" 0 "*" "" -- schema describe $E Broken
ok "schema describe/... and says so" grep -q "^  type: any (the schema does not bind this key)$" "$WORK/out"
expect "schema describe/a key the schema does not name: 1" 1 "" "prefs: the schema of $E ($SCHEMAS/$E.plist) does not name Nope" -- schema describe $E Nope
expect "schema describe/usage: 64" 64 "" "*" -- schema describe $E
# (key, flags of a refused write, what the message says it accepts)
while IFS='|' read -r key flags accepts; do
    [ -f "$CFG/$E.plist" ] && cp "$CFG/$E.plist" "$WORK/before" || rm -f "$WORK/before"
    # shellcheck disable=SC2086
    expect "schema write/$key $flags refused, one line" 1 "" "prefs: $key of $E accepts $accepts (its installed schema), not ${flags##* }; nothing was changed" -- write $E $key $flags
    if [ -f "$WORK/before" ]; then ok "schema write/$key $flags: file unchanged" cmp -s "$WORK/before" "$CFG/$E.plist"; fi
done <<'REFUSED'
Toggle|-int 1|a boolean
YesNo|maybe|one of yes, no
Size|-int 1000|an integer from 8 to 72
Size|-float 13.5|an integer from 8 to 72
Spacing|-float 3.5|a number from 1 to 3
Theme|sepia|one of light, dark, system
Level|-int 4|one of 1, 2, 3
Name|-int 3|a string
Version|-int 3|a string
Since|-string 2001|a date
Token|-int 0|data
REFUSED
quiet write $E Toggle -bool NO
quiet write $E YesNo no
quiet write $E Size -int 72
quiet write $E Spacing -int 2
quiet write $E Theme dark
quiet write $E Level -int 3
quiet write $E Name Bob
quiet write $E Broken -string anything
expect "schema write/in range: stored" 0 '{
    Broken = anything;
    Level = 3;
    Name = Bob;
    Size = 72;
    Spacing = 2;
    Theme = dark;
    Toggle = 0;
    YesNo = no;
}' "" -- read $E
printf '{ Free = 1; Size = 9; }' >"$WORK/import-ok.plist"
printf '<plist version="1.0"><dict><key>Free</key><integer>1</integer><key>Size</key><integer>99</integer></dict></plist>' >"$WORK/import-bad.plist"
cp "$CFG/$E.plist" "$WORK/before"
expect "schema import/a value the schema refuses: the whole import is refused" 1 "" "*" -- import $E "$WORK/import-bad.plist"
ok "schema import/... nothing changed" cmp -s "$WORK/before" "$CFG/$E.plist"
quiet write -g Size -int 1000
ok "schema write/the global domain is free" test "$rc" = 0
cat >"$CFG/$E.plist" <<'BADVALUES'
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>Level</key><real>2</real><key>Name</key><integer>7</integer>
<key>Size</key><integer>1000</integer><key>Theme</key><string>sepia</string><key>Toggle</key><string>perhaps</string></dict></plist>
BADVALUES
cp "$CFG/$E.plist" "$WORK/before"
expect "schema explain/a hand-edited value is ignored, and why" 0 'Size = 13 (schema)
  ignored: 1000 (app): the schema accepts an integer from 8 to 72
  ignored: 1000 (global): the schema accepts an integer from 8 to 72' "" -- explain $E Size
expect "schema explain/a value of the wrong type" 0 'Level = 1 (schema)
  ignored: 2 (app): the schema accepts one of 1, 2, 3' "" -- explain $E Level
capi_app "schema C read/out of range: the default" "integer 13" $E Size
capi_app "schema C read/not listed: the default" "string light" $E Theme
capi_app "schema C read/wrong type: the default" "boolean 1" $E Toggle
capi_app "schema C read/wrong type (string key): the default" "string Anne" $E Name
ok "schema read/the file is left as it was" cmp -s "$WORK/before" "$CFG/$E.plist"
# A path names a file, not an application: a write to it is not bound by
# the schema; readers of the application still answer the default.
quiet write "$CFG/$E.plist" Size -int 99
ok "schema write/a path domain is a file, not bound by the schema" test "$rc" = 0
expect "schema read/... the path reads what was stored" 0 "99" "" -- read "$CFG/$E.plist" Size
expect "schema explain/... the application reads the schema's default" 0 'Size = 13 (schema)
  ignored: 99 (app): the schema accepts an integer from 8 to 72
  ignored: 1000 (global): the schema accepts an integer from 8 to 72' "" -- explain $E Size
capi_app "schema C read/... in C too" "integer 13" $E Size
cp "$WORK/before" "$CFG/$E.plist"
# Every specifier type, and reals without a literal: the C header carries
# the schema's types exactly (a date is a date, data is data, NaN and the
# infinities are doubles), compiles pedantic, and its getters give the
# defaults for stored values that break the schema.
cat >"$WORK/reals.plist" <<'PLIST'
<plist version="1.0"><dict><key>PreferenceSpecifiers</key><array>
<dict><key>Type</key><string>PSSliderSpecifier</string><key>Key</key><string>N</string><key>DefaultValue</key><real>nan</real></dict>
<dict><key>Type</key><string>PSSliderSpecifier</string><key>Key</key><string>I</string><key>DefaultValue</key><real>+infinity</real></dict>
<dict><key>Type</key><string>PSSliderSpecifier</string><key>Key</key><string>M</string><key>DefaultValue</key><real>-infinity</real><key>MaximumValue</key><real>0</real></dict>
</array></dict></plist>
PLIST
p schema c "$HERE/../schemas/$E.plist"
cp "$WORK/out" "$WORK/every.h"
p schema c "$WORK/reals.plist"
cp "$WORK/out" "$WORK/reals.h"
cat >"$WORK/every.c" <<'CODE'
#include "every.h"
#include "reals.h"
#include <stdio.h>
static int failures;
#define CHECK(c) do { if (!(c)) { failures++; fprintf(stderr, "line %d: %s\n", __LINE__, #c); } } while (0)
int main(void) {
    char *s;
    PrefsPropertyListRef token;
    CHECK(isnan(reals_get_N()));
    CHECK(isinf(reals_get_I()) && reals_get_I() > 0);
    CHECK(isinf(reals_get_M()) && reals_get_M() < 0);
    CHECK(!reals_set_M(1.0));
    CHECK(every_get_Size() == 13);
    CHECK(every_get_Spacing() == 1.5);
    CHECK(every_get_Toggle() == true);
    CHECK(every_get_Level() == 1);
    CHECK(every_get_Since() == 978307200.0);
    s = every_get_Theme(); CHECK(s != NULL && strcmp(s, "light") == 0); free(s);
    s = every_get_YesNo(); CHECK(s != NULL && strcmp(s, "yes") == 0); free(s);
    token = every_get_Token();
    CHECK(token != NULL && PrefsGetType(token) == kPrefsTypeData && PrefsDataGetLength((PrefsDataRef)token) == 2);
    PrefsRelease(token);
    CHECK(!every_set_Size(1000) && !every_set_Level(4) && !every_set_Theme("sepia") && !every_set_Spacing(NAN));
    CHECK(!every_set_YesNo("maybe"));
    return failures != 0;
}
CODE
# shellcheck disable=SC2086
if $CC -std=c99 -Wall -Wextra -pedantic -Werror -I"$WORK" -o "$WORK/every" "$WORK/every.c" \
        $(pkg-config --cflags --libs prefs) -lm -Wl,-rpath,"$(pkg-config --variable=libdir prefs)" 2>"$WORK/cc.log"; then
    pass "schema c/every type and NaN, infinities: compiles pedantic"
    ok "schema c/every type: getters give the defaults for hand-edited values, setters refuse" "$WORK/every"
    ok "schema c/a date is a double getter, not a string" grep -q "^static inline double every_get_Since(void)" "$WORK/every.h"
else
    fail "schema c/every type and NaN, infinities: compiles pedantic" "$(head -c 600 "$WORK/cc.log")"
fi
quiet delete -g Size
expect "schema/usage: 64" 64 "" "*" -- schema frobnicate x
expect "ui/a host flag: 64" 64 "" "*" -- -currentHost ui $N
expect "schema/a host flag: 64" 64 "" "*" -- -currentHost schema show $N
unset XDG_DATA_HOME XDG_DATA_DIRS

#@group sync
# ---------------------------------------------------------------------------
# Synced keys: sync folder|add|remove|status, and explain naming the machine

S=com.example.synced
expect "sync/usage: 64" 64 "" "*" -- sync
expect "sync/add without key: 64" 64 "" "*" -- sync add $S
expect "sync/unknown: 64" 64 "" "*" -- sync frobnicate
expect "sync/a host flag: 64" 64 "" "*" -- -currentHost sync status
unset PREFS_SYNC_DIR
expect "sync/folder: the default" 0 "$HOME/.local/share/prefs/sync" "" -- sync folder
expect "sync/folder: set" 0 "" "" -- sync folder "$WORK/chosen"
expect "sync/folder: as set, for later processes" 0 "$WORK/chosen" "" -- sync folder
ok "sync/folder: kept in the user's configuration" test -f "$CFG/prefs/sync.plist"
export PREFS_SYNC_DIR=$WORK/sync
expect "sync/folder: PREFS_SYNC_DIR first" 0 "$WORK/sync" "" -- sync folder
expect "sync/add" 0 "" "" -- sync add $S Color Size
quiet write $S Color red
expect "sync/read a synced key" 0 "red" "" -- read $S Color
ok "sync/the value is in the sync folder, not the domain" test "$(ls "$WORK/sync" | grep -c '^machine-[0-9a-f]*\.plist$')" = 1 -a ! -e "$CFG/$S.plist"
p explain $S Color
ok "sync/explain names the machine and the time" grep -Eq '^Color = red \(synced from .*[0-9a-f]{32} at [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{12}Z\)$' "$WORK/out"
MACHINE_FILE=$(ls "$WORK/sync"/machine-*.plist)
refuse "sync/a key over 64 bytes is refused" 1 "$MACHINE_FILE" -- sync add $S "$(printf 'k%.0s' $(seq 65))"
refuse "sync/a file path is refused" 64 "$MACHINE_FILE" -- sync add /tmp/x Color
p sync add $'a/b\nFORGED LINE' Color
ok "sync/a bad domain: refused" test "$rc" != 0
ok "sync/a bad domain: its newline is escaped, not printed" test "$(wc -l <"$WORK/err")" = 1 -a -z "$(grep '^FORGED LINE' "$WORK/err")"
# Another machine's file with a terminal escape in its name, and garbage.
python3 - "$WORK/sync" <<'PY'
import plistlib, sys
m = "0123456789abcdef0123456789abcdef"
root = {"Format": 1, "Machine": m, "Name": "evil\x1b[31m",
        "Applications": {"com.example.synced": {"Values": {"Size": {"T": 1000, "C": 0, "V": 12}}}}}
open(f"{sys.argv[1]}/machine-{m}.plist", "wb").write(plistlib.dumps(root, fmt=plistlib.FMT_BINARY))
open(f"{sys.argv[1]}/notes.txt", "w").write("not ours")
PY
p sync status $S
ok "sync/status: the machines" test "$(grep -c 'last write' "$WORK/out")" = 2
ok "sync/status: each key, value, machine, time" grep -q '^  Color = red (' "$WORK/out"
ok "sync/status: a value from another machine" grep -q '^  Size = 12 (' "$WORK/out"
ok "sync/status: what was ignored" grep -q '^  notes.txt: ' "$WORK/out"
ok "sync/status: no control character reaches the terminal" test "$(tr -d '\n\t' <"$WORK/out" | LC_ALL=C tr -d '[:print:]' | wc -c)" = 0
# A machine holding Size at the very end of the clock's range: a write of
# Size cannot pass it and is refused, not lost; other keys are untouched.
python3 - "$WORK/sync" <<'PY'
import plistlib, sys
m = "f" * 32
root = {"Format": 1, "Machine": m, "Name": "end of time",
        "Applications": {"com.example.synced": {"Values": {"Size": {"T": 253402300799999, "C": 4294967295, "V": 99}},
                                                "Synced": {"Size": {"T": 1000, "C": 0, "S": True}}}}}
open(f"{sys.argv[1]}/machine-{m}.plist", "wb").write(plistlib.dumps(root, fmt=plistlib.FMT_BINARY))
PY
refuse "sync/a write that cannot pass the key's newest is refused" 1 "$MACHINE_FILE" -- write $S Size -int 5
expect "sync/so the key keeps its value" 0 "99" "" -- read $S Size
expect "sync/another key is still written" 0 "" "" -- write $S Color red
p sync status $S
ok "sync/written at an honest time, not the end of the range" grep -Eq "^  Color = red \(.* $(date -u +%Y)-" "$WORK/out"
rm -f "$WORK/sync/machine-ffffffffffffffffffffffffffffffff.plist"
expect "sync/remove keeps the value locally" 0 "" "" -- sync remove $S Color
expect "sync/removed: the app's domain answers" 0 "Color = red (app)" "" -- explain $S Color
unset PREFS_SYNC_DIR

# A domain another program wrote (by hand, Foundation, plistlib), read by
# short-lived processes: without an index, with one made by a libprefs
# write, and with that index stale after another program's rewrite. Every
# read is right, and a process that only reads writes nothing.

F=com.example.foreign
mkdir -p "$HOME/.cache"
foreign() {
    printf '%s\n' '<?xml version="1.0" encoding="UTF-8"?>' \
        '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">' \
        '<plist version="1.0">' '<dict>' \
        "	<key>Count</key>" "	<integer>$1</integer>" \
        "	<key>List</key>" "	<array>" "		<string>$2</string>" "		<integer>$1</integer>" "	</array>" \
        "	<key>Name</key>" "	<string>$2</string>" '</dict>' '</plist>' >"$WORK/foreign.plist"
    mv "$WORK/foreign.plist" "$CFG/$F.plist"
}
tree() { (cd "$WORK" && find home config -printf '%p %s %T@ %C@\n' | sort); }
index_of_F() { find "$HOME/.cache/prefs" -name "$F.plist.*.index" 2>/dev/null; }
foreign 7 seven
tree >"$WORK/tree.before"
expect "first read/no index: one process" 0 "seven" "" -- read $F Name
expect "first read/no index: the next process" 0 "7" "" -- read $F Count
expect "first read/no index: the next process, an array" 0 '(
    seven,
    7
)' "" -- read $F List
tree >"$WORK/tree.after"
ok "first read/a process that only reads writes nothing (no index either)" cmp -s "$WORK/tree.before" "$WORK/tree.after"
ok "first read/no index made by readers" test -z "$(index_of_F)"
expect "first read/a libprefs write" 0 "" "" -- write $F Extra -int 1
ok "first read/the write made the index" test -n "$(index_of_F)"
expect "first read/with the index: one process" 0 "seven" "" -- read $F Name
expect "first read/with the index: the next process" 0 "1" "" -- read $F Extra
foreign 8 eight
tree >"$WORK/tree.before"
expect "first read/stale index: one process" 0 "eight" "" -- read $F Name
expect "first read/stale index: the next process" 0 "8" "" -- read $F Count
expect "first read/stale index: the key only the index had" 1 "" "*" -- read $F Extra
tree >"$WORK/tree.after"
ok "first read/a stale index is left as it is by readers" cmp -s "$WORK/tree.before" "$WORK/tree.after"
# A writer killed between the rename of the domain file and the write of
# its index leaves the old index: readers must see the new file.
expect "first read/a libprefs write makes a current index" 0 "" "" -- write $F Count -int 9
PREFS_TEST_FAIL=crash-before-index bash -c '"$1" write "$2" Count -int 10; exit $?' - "$PREFS" $F >/dev/null 2>&1
ok "first read/a writer killed after its rename" test $? -eq 137
expect "first read/after the crash: one process" 0 "10" "" -- read $F Count
expect "first read/after the crash: the next process" 0 "eight" "" -- read $F Name
expect "first read/after the crash, the next write" 0 "" "" -- write $F Name again
expect "first read/after the crash, its index is read" 0 "10" "" -- read $F Count
# Any system call can be made to fail (PREFS_TEST_FAIL names it, not only
# write and rename): the write fails, says why, and the file is kept.
for call in open fsync; do
    cp "$CFG/$F.plist" "$WORK/kept.plist"
    PREFS_TEST_FAIL=$call "$PREFS" write $F Count -int 11 >/dev/null 2>"$WORK/err"
    ok "injected failure/a failing $call fails the write" test $? -ne 0
    ok "injected failure/a failing $call is reported" grep -q "Read-only file system" "$WORK/err"
    ok "injected failure/a failing $call leaves the file" cmp -s "$CFG/$F.plist" "$WORK/kept.plist"
    ok "injected failure/a failing $call leaves no temporary file" test -z "$(find "$CFG" -name '.prefs.tmp-*')"
done

# Shell completion, as installed: bash's function called as bash calls it

BASH_COMPLETION_FILE=$PREFIX/share/bash-completion/completions/prefs
# comp WORD... — the completions of the last word of the command line.
comp() {
    (
        # shellcheck source=/dev/null
        . "$BASH_COMPLETION_FILE" || exit 1
        COMP_WORDS=("$PREFS" "$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _prefs
        printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
    )
}
quiet write com.example.completion FontSize -int 1
quiet write com.example.completion Fonts -array a
if [ -f "$BASH_COMPLETION_FILE" ]; then
    ok "completion/bash: commands" test "$(comp re)" = "$(printf '%s\n' read read-type rename)"
    ok "completion/bash: after a host flag" test "$(comp -currentHost wr)" = write
    ok "completion/bash: domains" test "$(comp read com.example.compl)" = com.example.completion
    ok "completion/bash: keys" test "$(comp read com.example.completion Font)" = "$(printf '%s\n' FontSize Fonts)"
    ok "completion/bash: value flags" test "$(comp write com.example.completion FontSize -in)" = "$(printf '%s\n' -int -integer)"
else
    fail "completion/bash: installed" "$BASH_COMPLETION_FILE is missing"
fi
if command -v zsh >/dev/null; then
    ok "completion/zsh: the file parses" zsh -n "$PREFIX/share/zsh/vendor-completions/_prefs"
fi

#@end
# ---------------------------------------------------------------------------

ok "files/no temporary or moved-aside file left anywhere" test -z "$(find "$CFG" 2>/dev/null -name '*.corrupt-*' -o -name '.prefs.tmp-*' -o -name '.prefs-export-*')"

summary
