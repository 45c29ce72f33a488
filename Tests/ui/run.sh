#!/usr/bin/env bash
#
# run.sh <prefix> — `prefs ui` driven in a real terminal: tmux runs a shell
# in an 80x24 window, the test types into it (send-keys) and reads the
# screen (capture-pane), as a user would see it. With the example schema
# installed in a private XDG_DATA_HOME:
#
#   the view lists each key, its type, its value, its layer and the
#   default badge; a value cut to fit ends in a mark; a write by another
#   process shows within a second; / filters as it is typed; Enter
#   edits (a refused value changes nothing and says why; a valid one is
#   stored and read back by prefs); d removes the user's value and the
#   default shows again; a file that does not parse is listed in its pane;
#   the selected key's schema (title, description, type, what it accepts)
#   and the values it shadows show; a value the schema refuses says what is
#   accepted; listed values are chosen from a list;
#   q quits and the terminal is restored (the shell's screen is back, the
#   line discipline is canonical with echo); TERM=dumb gives a plain listing;
#   a domain that does not exist is said to be missing.
#
# One line per check, then "N passed, N failed"; exit status 0 or 1.

set -u
. "$(dirname "$0")/setup.sh" ui-tests "$@"
mkdir -p "$XDG_DATA_HOME/prefs/schemas"
cp "$ROOT"/examples/schema/*.plist "$XDG_DATA_HOME/prefs/schemas/"
APP=com.example.notes

# expect NAME PATTERN [SECONDS]: the screen shows PATTERN (grep -E) within SECONDS.
expect() {
    local name=$1 pattern=$2 limit=${3:-3} i
    for ((i = 0; i < limit * 10; i++)); do
        if screen | grep -Eq -- "$pattern"; then
            pass "$name"
            return 0
        fi
        sleep 0.1
    done
    fail "$name" "the screen does not show /$pattern/"
    return 1
}
# expect_not NAME PATTERN: the screen does not show PATTERN (now).
expect_not() {
    if screen | grep -Eq -- "$2"; then fail "$1" "the screen still shows /$2/"; else pass "$1"; fi
}

"$PREFS" write $APP FontSize -int 20

T -f /dev/null new-session -d -s ui -x 80 -y 24 \
    "env -u TMUX TERM=xterm-256color PS1='shell> ' bash --norc --noprofile -i"
T set-option -t ui status off >/dev/null
sleep 0.3
T send-keys -t ui "echo before-the-view; $PREFS ui $APP" Enter

expect "ui/starts" "prefs ui: com.example.notes"
expect "ui/user-value-and-layer" "^FontSize +int +20 +app"
expect "ui/schema-default-badge" "^LineSpacing +real +1\.2 +schema +\[default\]"
expect "ui/child-pane-and-parent" "^SpellCheck +bool +true +schema"
if [ "$(screen | wc -L)" -le 80 ]; then pass "ui/fits-80-columns"; else fail "ui/fits-80-columns" "a line is wider than 80"; fi

# Another process writes: seen within a second, without a key press.
"$PREFS" write $APP Theme -string dark
expect "ui/live-write-from-another-process" "^Theme +string +dark +app" 1
# A hand edit of the file (no library writer): seen within a second too.
sleep 1.1
sed -i 's|<string>dark</string>|<string>system</string>|' "$XDG_CONFIG_HOME/$APP.plist"
expect "ui/live-hand-edit" "^Theme +string +system +app" 2

# Filter: the view follows each key typed, before Enter.
T send-keys -t ui "/" ; T send-keys -t ui -l "spac"
expect "ui/filter-as-you-type-keeps-matches" "^LineSpacing"
expect_not "ui/filter-as-you-type-hides-others" "^FontSize"
T send-keys -t ui Enter
expect "ui/filter-keeps-matches" "^LineSpacing"
expect_not "ui/filter-hides-others" "^FontSize"
T send-keys -t ui "/"; T send-keys -t ui Escape
expect "ui/filter-cleared" "^FontSize"

# Edit FontSize (the second row): a refused value, then a valid one.
T send-keys -t ui Home Down Enter
expect "ui/edit-prompt" "^FontSize = 20"
T send-keys -t ui C-u; T send-keys -t ui -l "big"; T send-keys -t ui Enter
expect "ui/refused-says-why" "refused: 'big' is not an integer"
if [ "$("$PREFS" read $APP FontSize)" = 20 ]; then pass "ui/refused-changes-nothing"; else fail "ui/refused-changes-nothing" "FontSize is $("$PREFS" read $APP FontSize)"; fi
T send-keys -t ui Enter C-u; T send-keys -t ui -l "24"; T send-keys -t ui Enter
expect "ui/edit-shows" "^FontSize +int +24 +app"
if [ "$("$PREFS" read-type $APP FontSize) $("$PREFS" read $APP FontSize)" = "Type is integer 24" ]; then
    pass "ui/edit-stored-as-integer"
else
    fail "ui/edit-stored-as-integer" "$("$PREFS" read-type $APP FontSize) $("$PREFS" read $APP FontSize)"
fi

# d: the user's value goes, the schema's default shows again.
T send-keys -t ui d
expect "ui/d-shows-default" "^FontSize +int +13 +schema +\[default\]"
if ! "$PREFS" read $APP FontSize >/dev/null 2>&1; then pass "ui/d-removed-user-value"; else fail "ui/d-removed-user-value" "still stored"; fi

# The schema: the selected key's title, description, type and what it
# accepts; a value it refuses says so; a listed value is chosen from a list;
# a hand-edited value it ignores shows as shadowed. (Up and Down rather
# than Home and End, which terminals send in several ways.)
T send-keys -t ui Up Up Up Up Up Down
expect "ui/schema-title-and-description" "^Font size: Points, for the text of every note\."
expect "ui/schema-type-and-range" "^type: integer  accepts: an integer from 8 to 72"
T send-keys -t ui Enter C-u; T send-keys -t ui -l "1000"; T send-keys -t ui Enter
expect "ui/schema-refusal-says-what-is-accepted" "refused: FontSize of com.example.notes accepts an integer from 8 to"
if ! "$PREFS" read $APP FontSize >/dev/null 2>&1; then pass "ui/schema-refusal-stores-nothing"; else fail "ui/schema-refusal-stores-nothing" "stored"; fi
T send-keys -t ui Down Down Down Down Down Enter
expect "ui/schema-choice-list" "Same as the system"
expect "ui/schema-choice-list-values" "dark +Dark"
T send-keys -t ui Up Enter
expect "ui/schema-choice-stored" "^Theme +string +dark +app"
if [ "$("$PREFS" read $APP Theme)" = dark ]; then pass "ui/schema-choice-read-back"; else fail "ui/schema-choice-read-back" "$("$PREFS" read $APP Theme)"; fi
T send-keys -t ui Down Down Down Down Down Enter Escape
expect "ui/schema-choice-cancelled" "choice cancelled"
sleep 1.1
printf '<plist version="1.0"><dict><key>FontSize</key><integer>1000</integer><key>Theme</key><string>dark</string></dict></plist>' \
    >"$XDG_CONFIG_HOME/$APP.plist"
T send-keys -t ui Up Up Up Up Up Down
expect "ui/schema-ignored-value-reads-default" "^FontSize +int +13 +schema +\[default\]" 2
expect "ui/schema-shadowed-ignored-value" "^shadows: 1000 \(app, ignored: breaks the schema\)"
T send-keys -t ui Down Down Down Down Down
expect "ui/shadowed-schema-default" "^shadows: light \(schema\)"

# A value wider than its column ends in the cut mark (… in UTF-8, else >).
"$PREFS" write $APP LongValue -string "$(printf 'x%.0s' {1..200})"
expect "ui/cut-value-marked" "^LongValue +string +x+(…|>) +app"
# A message wider than the screen wraps rather than being cut.
T send-keys -t ui Up Up Up Up Up Down Enter C-u; T send-keys -t ui -l "$(printf 'b%.0s' {1..75})"; T send-keys -t ui Enter
expect "ui/long-message-wraps" "^bbbbb' is not an? (integer|number) \(the value is one\); nothing changed"
"$PREFS" delete $APP LongValue

# A file of the search list that does not parse: listed in its pane.
printf 'not a plist <<<' >"$XDG_CONFIG_HOME/.GlobalPreferences.plist"
expect "ui/unparsable-file-pane" "files that did not parse" 3
expect "ui/unparsable-file-named" "GlobalPreferences" 1
rm -f "$XDG_CONFIG_HOME/.GlobalPreferences.plist"

# q: back to the shell, its screen restored, the terminal sane again.
T send-keys -t ui q
expect "ui/quit-restores-screen" "^before-the-view"
T send-keys -t ui "stty -a | tr ' ' '\n' | grep -Ex -- '-?(icanon|echo)' | tr '\n' ' '; echo" Enter
expect "ui/quit-restores-line-discipline" "^(icanon echo|echo icanon) ?$"
expect_not "ui/quit-leaves-no-view" "prefs ui: com.example.notes"

# TERM=dumb: a plain listing.
out=$(TERM=dumb "$PREFS" ui $APP </dev/null)
if printf '%s\n' "$out" | grep -q '^LineSpacing = 1.2 (real, schema) default$'; then
    pass "ui/dumb-terminal-plain-listing"
else
    fail "ui/dumb-terminal-plain-listing" "$out"
fi

# A domain that does not exist: said so, not just shown empty.
err=$(TERM=dumb "$PREFS" ui com.example.no-such-domain 2>&1 >/dev/null </dev/null)
if [ "$err" = "prefs: no such domain: nothing is stored for it; the keys below are the global domain's" ]; then
    pass "ui/missing-domain-said"
else
    fail "ui/missing-domain-said" "stderr: $err"
fi
err=$(TERM=dumb "$PREFS" ui $APP 2>&1 >/dev/null </dev/null)
if [ -z "$err" ]; then pass "ui/schema-domain-not-missing"; else fail "ui/schema-domain-not-missing" "stderr: $err"; fi

summary
