#!/usr/bin/env bash
# Benchmarks/cli/run.sh: the "prefs command" section of BENCHMARKS.md.
#
# Whole processes, each touching one key of a 1,000-key domain (keys
# key0001..key1000, string values), side by side:
#
#   read    prefs read D key0500        dconf read /D/key0500
#           a Foundation program: UserDefaults(suiteName: D).string(forKey:)
#   write   prefs write D key0500 V     dconf write /D/key0500 "'V'"
#           the Foundation program: set(_:forKey:) then synchronize()
#
# Each timed write changes the value (hyperfine --prepare first sets it to
# something else, untimed), and each contender's change is on disk when its
# command returns (checked before timing). Timing: hyperfine -N (no shell),
# in ROUNDS rounds whose contender order rotates, so that the load of a
# shared machine falls on all of them alike; medians are over every run of
# every round. Instruction counts of one read per contender come from
# valgrind (callgrind) when it is installed: unlike times, they do not move
# with the machine's load.
#
#   Benchmarks/cli/run.sh              measure, print the section
#   Benchmarks/cli/run.sh --append     ... and append it to BENCHMARKS.md
#   Benchmarks/cli/run.sh --quick      few runs (a smoke test)
#
# Everything runs with a fresh HOME, XDG_CONFIG_HOME and XDG_RUNTIME_DIR,
# inside a D-Bus session of its own (dbus-run-session; dconf write needs
# its service). Knobs (environment): PREFS_PREFIX, an installed prefix to
# measure (default: `make install` of this checkout into a temporary
# prefix); ROUNDS (5); READ_RUNS and WRITE_RUNS, runs per contender per
# round (60 and 30); WARMUP (10). Results: Benchmarks/cli/results/.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
results=$here/results
invocation="Benchmarks/cli/run.sh${*:+ $*}"

append=0 quick=0
for arg in "$@"; do
    case $arg in
        --append) append=1 ;;
        --quick) quick=1 ;;
        *) echo "usage: $0 [--append] [--quick]" >&2; exit 2 ;;
    esac
done
ROUNDS=${ROUNDS:-5}
READ_RUNS=${READ_RUNS:-60}
WRITE_RUNS=${WRITE_RUNS:-30}
WARMUP=${WARMUP:-10}
if [ "$quick" = 1 ]; then ROUNDS=2 READ_RUNS=10 WRITE_RUNS=5 WARMUP=2; fi

step() { printf '== %s\n' "$*" >&2; }

# ---------------------------------------------------------------- tools
if ! command -v swiftc >/dev/null && [ -x /opt/swift/usr/bin/swiftc ]; then PATH=/opt/swift/usr/bin:$PATH; fi
missing=()
command -v hyperfine >/dev/null || missing+=(hyperfine)
command -v dconf >/dev/null || missing+=(dconf-cli)
command -v dbus-run-session >/dev/null || missing+=(dbus)
command -v python3 >/dev/null || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        step "installing ${missing[*]}"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null
    else
        echo "$0: missing ${missing[*]} (apt-get install ${missing[*]})" >&2
        exit 1
    fi
fi
command -v swiftc >/dev/null || { echo "$0: swiftc not found (for the Foundation program)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/prefs-cli-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$results" "$work/home" "$work/config" "$work/run" "$work/bin"
chmod 700 "$work/run"

# ---------------------------------------------------------------- programs
if [ -n "${PREFS_PREFIX:-}" ]; then
    prefix=$(cd "$PREFS_PREFIX" && pwd)
else
    prefix=$work/stage
    step "building and installing libprefs into $prefix"
    make -C "$root" install PREFIX="$prefix" LIBDIR="$prefix/lib" >"$work/install.log" 2>&1 || { tail -20 "$work/install.log" >&2; exit 1; }
fi
prefs=$prefix/bin/prefs
[ -x "$prefs" ] || { echo "$0: $prefs not found" >&2; exit 1; }

step "building the Foundation program (swiftc -O)"
cat >"$work/bin/foundation-prefs.swift" <<'EOF'
// The same two operations with Foundation's UserDefaults:
//   foundation-prefs read <suite> <key>            prints the string
//   foundation-prefs write <suite> <key> <value>   sets it, then synchronize()
import Foundation

let args = CommandLine.arguments
guard args.count >= 4, let defaults = UserDefaults(suiteName: args[2]) else { exit(64) }
if args[1] == "read" {
    guard let value = defaults.string(forKey: args[3]) else { exit(1) }
    print(value)
} else if args[1] == "write", args.count == 5 {
    defaults.set(args[4], forKey: args[3])
    exit(defaults.synchronize() ? 0 : 1)
} else {
    exit(64)
}
EOF
swiftc -O "$work/bin/foundation-prefs.swift" -o "$work/bin/foundation-prefs" 2>"$work/swiftc.log" || { cat "$work/swiftc.log" >&2; exit 1; }

# ---------------------------------------------------------------- fixtures
{
    echo '{'
    for i in $(seq -w 1 1000); do echo "    key$i = \"value number $i\";"; done
    echo '}'
} >"$work/fixture.txt"
{
    echo '[/]'
    for i in $(seq -w 1 1000); do echo "key$i='value number $i'"; done
} >"$work/fixture.ini"

# ---------------------------------------------------------------- the measured session
cat >"$work/session.sh" <<'EOF'
set -euo pipefail
cd "$WORK"
fail() { echo "session: $*" >&2; exit 1; }
D=com.example.clibench
FD=com.example.clibench-foundation
DP=/com/example/clibench
prefs=$PREFS
foundation=$WORK/bin/foundation-prefs

"$prefs" import $D "$WORK/fixture.txt"
cp "$XDG_CONFIG_HOME/$D.plist" "$XDG_CONFIG_HOME/$FD.plist"
dconf load $DP/ <"$WORK/fixture.ini"

# Every contender reads the fixture...
[ "$("$prefs" read $D key0500)" = "value number 0500" ] || fail "prefs read"
[ "$(dconf read $DP/key0500)" = "'value number 0500'" ] || fail "dconf read"
[ "$("$foundation" read $FD key0500)" = "value number 0500" ] || fail "Foundation read"
[ "$("$prefs" read $D | grep -c ' = ')" = 1000 ] || fail "prefs domain size"
[ "$(dconf list $DP/ | wc -l)" = 1000 ] || fail "dconf directory size"
# ... and has its change on disk when its write returns.
db=$XDG_CONFIG_HOME/dconf/user
"$prefs" write $D key0500 check && grep -q '<string>check</string>' "$XDG_CONFIG_HOME/$D.plist" || fail "prefs write not on disk"
before=$(md5sum <"$db"); dconf write $DP/key0500 "'check'"; after=$(md5sum <"$db")
[ "$before" != "$after" ] || fail "dconf write not on disk when it returned"
"$foundation" write $FD key0500 check && grep -q '<string>check</string>' "$XDG_CONFIG_HOME/$FD.plist" || fail "Foundation write not on disk"

read_cmds=("$prefs read $D key0500" "dconf read $DP/key0500" "$foundation read $FD key0500")
write_cmds=("$prefs write $D key0500 timed" "dconf write $DP/key0500 \"'timed'\"" "$foundation write $FD key0500 timed")
prep_cmds=("$prefs write $D key0500 other" "dconf write $DP/key0500 \"'other'\"" "$foundation write $FD key0500 other")

for r in $(seq 1 "$ROUNDS"); do
    # Rotate the order: round 1 prefs first, round 2 dconf first, ...
    order=()
    for k in 0 1 2; do order+=($(( (k + r - 1) % 3 ))); done
    args=()
    for i in "${order[@]}"; do args+=("${read_cmds[$i]}"); done
    hyperfine -N --style none --warmup "$WARMUP" --runs "$READ_RUNS" --export-json "$OUT/read-$r.json" "${args[@]}" >/dev/null
    args=()
    for i in "${order[@]}"; do args+=(--prepare "${prep_cmds[$i]}"); done
    for i in "${order[@]}"; do args+=("${write_cmds[$i]}"); done
    hyperfine -N --style none --warmup 2 --runs "$WRITE_RUNS" --export-json "$OUT/write-$r.json" "${args[@]}" >/dev/null
    echo "round $r of $ROUNDS done" >&2
done

# Instructions of one read each (and of `prefs help`, the start-up floor).
if command -v valgrind >/dev/null; then
    for c in "prefs-read:$prefs read $D key0500" "prefs-help:$prefs help" \
             "dconf-read:dconf read $DP/key0500" "foundation-read:$foundation read $FD key0500"; do
        name=${c%%:*}
        valgrind --tool=callgrind --callgrind-out-file=/dev/null ${c#*:} 2>"$OUT/$name.callgrind.log" >/dev/null || true
    done
fi
EOF

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
load_before=$(loadavg)
started=$(date +%s)
step "measuring ($ROUNDS rounds, $READ_RUNS reads and $WRITE_RUNS writes per contender per round)"
rm -f "$results"/*.json "$results"/*.callgrind.log
env -i PATH="$PATH" HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_RUNTIME_DIR="$work/run" LANG=C.UTF-8 \
    WORK="$work" PREFS="$prefs" OUT="$results" ROUNDS="$ROUNDS" READ_RUNS="$READ_RUNS" WRITE_RUNS="$WRITE_RUNS" \
    WARMUP="$WARMUP" dbus-run-session -- bash "$work/session.sh" 2> >(grep -v '^dbus-daemon\[' >&2)
load_after=$(loadavg)
elapsed=$(( $(date +%s) - started ))

# ---------------------------------------------------------------- the section
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
mem=$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
os=$(. /etc/os-release && echo "$PRETTY_NAME")
swift_version=$(swiftc --version 2>&1 | head -n 1)
dconf_version=$(dpkg-query -W -f '${Version}' dconf-cli 2>/dev/null || echo unknown)
hyperfine_version=$(hyperfine --version | cut -d' ' -f2)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo " plus uncommitted changes" || true)

python3 - "$results" >"$results/summary.md" <<EOF
import json, sys, os, re, statistics
out = sys.argv[1]
names = {"foundation-prefs": "Foundation", "prefs": "prefs", "dconf": "dconf"}
def who(command):
    for key, name in names.items():
        if command.split()[0].endswith(key): return name
    return command
data = {}
for op in ("read", "write"):
    for f in sorted(os.listdir(out)):
        if not (f.startswith(op + "-") and f.endswith(".json")): continue
        for r in json.load(open(os.path.join(out, f)))["results"]:
            d = data.setdefault((op, who(r["command"])), {"times": [], "cpu": []})
            d["times"] += r["times"]
            d["cpu"] += [r["user"] + r["system"]] * len(r["times"])
def q(xs, p):
    xs = sorted(xs); k = (len(xs) - 1) * p; i = int(k)
    return xs[i] if i + 1 >= len(xs) else xs[i] + (xs[i + 1] - xs[i]) * (k - i)
ms = lambda s: s * 1000
med = {k: statistics.median(v["times"]) for k, v in data.items()}
cpu = {k: statistics.mean(v["cpu"]) for k, v in data.items()}
instr = {}
for name in ("prefs-read", "prefs-help", "dconf-read", "foundation-read"):
    try:
        m = re.search(r"Collected : ([0-9]+)", open(os.path.join(out, name + ".callgrind.log")).read())
        if m: instr[name] = int(m.group(1))
    except OSError: pass

print("## prefs command")
print()
print("Machine: ${cpu}, $(nproc) cores, ${mem} RAM, Linux $(uname -r), ${os}; shared with other builds (load average ${load_before} before, ${load_after} after; ${elapsed} s).")
print("Software: ${swift_version}; dconf-cli ${dconf_version}; hyperfine ${hyperfine_version}; libprefs ${commit}${dirty}.")
print("Command: \`${invocation}\` (ROUNDS=${ROUNDS} READ_RUNS=${READ_RUNS} WRITE_RUNS=${WRITE_RUNS} WARMUP=${WARMUP}).")
print()
print("Whole processes on a 1,000-key domain (string values, 54 KB as XML): \`prefs read D key0500\`, \`dconf read\`, and a Foundation program (\`swiftc -O\`) calling \`UserDefaults(suiteName:).string(forKey:)\`; \`prefs write D key0500 V\`, \`dconf write\` (through dconf-service, in a \`dbus-run-session\`), and the Foundation program's \`set(_:forKey:)\` + \`synchronize()\`. Each timed write changes the value, and each contender's change was checked to be on disk when its command returned (prefs and dconf-service both fsync the file and its directory). hyperfine -N, ${ROUNDS} rounds with the contenders' order rotated; medians over all runs.")
print()
print("| operation | program | runs | median ms | IQR (q1–q3) ms | min ms | mean user+sys ms |")
print("|---|---|---:|---:|---:|---:|---:|")
for op in ("read", "write"):
    for name in ("prefs", "dconf", "Foundation"):
        d = data.get((op, name))
        if not d: continue
        t = d["times"]
        print(f"| {op} | {name} | {len(t)} | {ms(med[(op, name)]):.2f} | {ms(q(t, .25)):.2f}–{ms(q(t, .75)):.2f} | {ms(min(t)):.2f} | {ms(cpu[(op, name)]):.2f} |")
print()
if instr:
    print("Instructions of one process (valgrind --tool=callgrind; independent of load):", ", ".join(
        f"{k.replace('-', ' ')} {v / 1e6:.1f} M" for k, v in instr.items()) + ".")
    print()
def ratio(a, b): return med[a] / med[b]
def cpuratio(a, b): return cpu[a] / cpu[b]
r1 = ratio(("read", "prefs"), ("read", "dconf"))
r2 = ratio(("read", "Foundation"), ("read", "prefs"))
r3 = ratio(("write", "prefs"), ("write", "dconf"))
c1 = cpuratio(("read", "prefs"), ("read", "dconf"))
c2 = cpuratio(("read", "Foundation"), ("read", "prefs"))
c3 = cpuratio(("write", "prefs"), ("write", "dconf"))
verdict = lambda ok: "met" if ok else "MISSED"
print("Targets (medians of wall-clock time; CPU time in brackets):")
print()
print(f"- \`prefs read D K\` within 1.2x of \`dconf read\`: {verdict(r1 <= 1.2)} ({r1:.2f}x; CPU {c1:.2f}x)")
print(f"- \`prefs read D K\` at least 2.5x faster than the Foundation program: {verdict(r2 >= 2.5)} ({r2:.2f}x; CPU {c2:.2f}x)")
print(f"- \`prefs write D K V\` no slower than \`dconf write\`: {verdict(r3 <= 1.0)} ({r3:.2f}x dconf's time; CPU {c3:.2f}x)")
EOF

cat "$results/summary.md"
if [ "$append" = 1 ]; then
    { printf '\n'; cat "$results/summary.md"; } >"$work/section.md"
    # One write, so that the section lands whole next to other writers' sections.
    cat "$work/section.md" >>"$root/BENCHMARKS.md"
    step "appended to BENCHMARKS.md"
fi
