# lib.sh — what every shell test of this repository shares: one line a
# check, the counts, the closing line, and the choice of the checks to run.
# Sourced, not run:  . "$ROOT/Tests/lib.sh"
#
#   pass NAME [DETAIL]           PASS  NAME  (DETAIL)
#   fail NAME DETAIL [LOGFILE]   FAIL  NAME  (DETAIL), the detail on one line
#                                (newlines shown as \n, at most 400
#                                characters); then, if the script defines
#                                on_fail, on_fail NAME DETAIL [LOGFILE] (the C
#                                tests show what the log says, the UI tests
#                                the screen); else the last 40 lines of
#                                LOGFILE, indented
#   skip NAME WHY                SKIP  NAME  (WHY)
#   ok NAME COMMAND...           pass when COMMAND succeeds, else fail
#   summary                      "N passed, N failed" (", N skipped" when
#                                any was); status 0 when none failed
#   run_groups SCRIPT            GROUP="name[ name...]" (or with commas) runs
#                                only those groups of SCRIPT (see below),
#                                then its epilogue, and exits with the
#                                epilogue's status; without GROUP it returns
#                                and the script runs every group
#
# A script with groups marks each with a line "#@group NAME" before its
# first line (a group runs from there to the next marker), and its
# epilogue, the checks that hold after any group and the summary, with
# "#@end". A group must set up what it needs itself, so that it runs alone.

passed=0
failed=0
skipped=0

# hostile_schema FILE: writes a settings schema whose title, description,
# a key and a default all hold HOSTILE (set here): comment openers and
# closers, a trigraph, a backslash at the end of a line, a newline, a
# bidirectional override. The schema generators' tests read it.
hostile_schema() {
    HOSTILE=$'x /* y */ z ??/ w\\\nv \xe2\x80\xae rtl ??='
    {
        printf '<plist version="1.0"><dict><key>PreferenceSpecifiers</key><array>\n'
        printf '<dict><key>Type</key><string>PSTextFieldSpecifier</string><key>Key</key><string>Hostile</string>'
        printf '<key>DefaultValue</key><string>%s</string><key>Title</key><string>%s</string><key>Description</key><string>%s/</string></dict>\n' "$HOSTILE" "$HOSTILE" "$HOSTILE"
        printf '<dict><key>Type</key><string>PSTextFieldSpecifier</string><key>Key</key><string>%s</string><key>DefaultValue</key><string>%s</string></dict>\n' "$HOSTILE" "$HOSTILE"
        printf '</array></dict></plist>\n'
    } >"$1"
}

pass() {
    passed=$((passed + 1))
    printf 'PASS  %s%s\n' "$1" "${2:+  ($2)}"
}

fail() {
    failed=$((failed + 1))
    local detail=${2//$'\n'/\\n}
    printf 'FAIL  %s  (%.400s)\n' "$1" "$detail"
    if declare -F on_fail >/dev/null; then
        on_fail "$@"
    elif [ -n "${3:-}" ] && [ -s "$3" ]; then
        tail -n 40 "$3" | sed 's/^/      | /'
    fi
}

skip() {
    skipped=$((skipped + 1))
    printf 'SKIP  %s  (%s)\n' "$1" "$2"
}

ok() {
    local name=$1
    shift
    if "$@"; then pass "$name"; else fail "$name" "check failed: $*"; fi
}

summary() {
    if [ "$skipped" -gt 0 ]; then
        echo "$passed passed, $failed failed, $skipped skipped"
    else
        echo "$passed passed, $failed failed"
    fi
    [ "$failed" -eq 0 ]
}

# groups SCRIPT — the names of SCRIPT's groups, one a line.
groups() {
    sed -n 's/^#@group \([^ ]*\).*/\1/p' "$1"
}

run_groups() {
    [ -n "${GROUP:-}" ] || return 0
    local _script=$1 _name _code _want=,
    for _name in ${GROUP//,/ }; do
        _want=$_want$_name,
        if ! groups "$_script" | grep -qxF -- "$_name"; then
            echo "$_script: no group '$_name'; the groups are: $(groups "$_script" | tr '\n' ' ')" >&2
            exit 2
        fi
    done
    # The chosen groups in the script's order, then the epilogue.
    _code=$(awk -v want="$_want" '
        /^#@group / { on = index(want, "," $2 ",") > 0; next }
        /^#@end/ { on = 1; next }
        on' "$_script")
    # Evaluated in this function: the groups' assignments still set the
    # script's variables (only these locals are the function's).
    eval "$_code"
    exit
}
