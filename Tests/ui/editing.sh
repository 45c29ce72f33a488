#!/usr/bin/env bash
#
# editing.sh <prefix> — `prefs ui` edits change exactly what the user
# changed, of exactly the key shown. tmux runs the view in an 80x24
# window; the test types into it (send-keys) and reads the values back
# with prefs.
#
#   Enter, Enter (the editor accepted unchanged) leaves a date a date,
#   the integers and booleans inside a dictionary what they were, runs of
#   spaces inside a string, and a string of 5,000 bytes whole;
#   d and an edit on a key of 600 bytes act on that key, not on another key
#   that is its 511-byte prefix.
#
# One line per check, then "N passed, N failed"; exit status 0 or 1.

set -u
. "$(dirname "$0")/setup.sh" ui-editing "$@"

# wait_for PATTERN [SECONDS]: until the screen shows PATTERN (grep -E).
wait_for() {
    local i
    for ((i = 0; i < ${2:-3} * 10; i++)); do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.1
    done
    return 1
}
# same NAME BEFORE AFTER
same() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "before: $(printf %.120s "$2"), after: $(printf %.120s "$3")"; fi
}
# snapshot D K: the value's type and its exact text, as the command reads them.
snapshot() { printf '%s\n' "$("$PREFS" read-type "$1" "$2" 2>&1)" "$("$PREFS" export "$1" - 2>&1)"; }

APP=com.example.edit
"$PREFS" write $APP When -date 2026-01-02T03:04:05Z
"$PREFS" write $APP Dict -dict count -int 3 on -bool YES ratio -float 0.5 name -string x
"$PREFS" write $APP Spaces -string "a    b     c"
LONG=$(head -c 5000 /dev/zero | tr '\0' y)
"$PREFS" write $APP Longtext -string "$LONG"
"$PREFS" write $APP Items -array -int 1 -int 2

T -f /dev/null new-session -d -s ui -x 80 -y 24 \
    "env -u TMUX TERM=xterm-256color PS1='shell> ' bash --norc --noprofile -i"
T set-option -t ui status off >/dev/null
sleep 0.3
T send-keys -t ui "$PREFS ui $APP" Enter
wait_for "prefs ui: $APP" 5 || fail "ui/starts" "no view"

# accept KEY: filters the view to KEY, opens the editor on it and accepts
# it as shown.
accept() {
    T send-keys -t ui "/"
    T send-keys -t ui C-u
    T send-keys -t ui -l "$1"
    T send-keys -t ui Enter
    wait_for "^$1 " 2
    T send-keys -t ui Home Enter
    wait_for "^$1 = " 2
    T send-keys -t ui Enter
    wait_for "unchanged|saved|refused|not edited" 2
}
for key in When Dict Spaces Longtext Items; do
    before=$(snapshot $APP $key)
    accept $key
    same "ui/Enter, Enter on $key changes nothing" "$before" "$(snapshot $APP $key)"
done
if [ "$("$PREFS" read $APP Longtext | tr -d '\n' | wc -c)" = 5000 ]; then
    pass "ui/a string of 5,000 bytes is not cut"
else
    fail "ui/a string of 5,000 bytes is not cut" "$("$PREFS" read $APP Longtext | wc -c) bytes"
fi
# An edit of a string keeps the runs of spaces the user kept.
T send-keys -t ui "/"
T send-keys -t ui C-u
T send-keys -t ui -l Spaces
T send-keys -t ui Enter
wait_for "^Spaces " 2
T send-keys -t ui Home Enter
wait_for "^Spaces = " 2
T send-keys -t ui BSpace
T send-keys -t ui -l '  d"'
T send-keys -t ui Enter
wait_for "saved|refused" 2
same "ui/an edited string keeps its runs of spaces" "a    b     c  d" "$("$PREFS" read $APP Spaces)"
T send-keys -t ui q
sleep 0.3

# Keys of 600 bytes and their 511-byte prefix: each action acts on the key shown.
APP2=com.example.longkeys
SHORT=$(head -c 511 /dev/zero | tr '\0' k)
KEY600=$(head -c 600 /dev/zero | tr '\0' k)
"$PREFS" write $APP2 "$SHORT" -string short
"$PREFS" write $APP2 "$KEY600" -string long
T send-keys -t ui "$PREFS ui $APP2" Enter
wait_for "prefs ui: $APP2 \(2 keys\)" 5 || fail "ui/long keys: view" "no view"
# The rows are sorted: the prefix first, the 600-byte key second.
T send-keys -t ui Home Down Enter
wait_for "k \.\.\. long" 2
T send-keys -t ui C-u
T send-keys -t ui -l edited
T send-keys -t ui Enter
wait_for "saved|refused" 2
if [ "$("$PREFS" read $APP2 "$KEY600")" = edited ] && [ "$("$PREFS" read $APP2 "$SHORT")" = short ] &&
    [ "$("$PREFS" read $APP2 | grep -c '=')" = 2 ]; then
    pass "ui/an edit of a 600-byte key sets that key, and no other"
else
    fail "ui/an edit of a 600-byte key sets that key, and no other" "$("$PREFS" read $APP2 | cut -c1-40)"
fi
T send-keys -t ui Home Down d
wait_for "removed" 2
if ! "$PREFS" read $APP2 "$KEY600" >/dev/null 2>&1 && [ "$("$PREFS" read $APP2 "$SHORT")" = short ]; then
    pass "ui/d on a 600-byte key removes that key, not its 511-byte prefix"
else
    fail "ui/d on a 600-byte key removes that key, not its 511-byte prefix" "$("$PREFS" read $APP2 | cut -c1-40)"
fi
T send-keys -t ui q

summary
