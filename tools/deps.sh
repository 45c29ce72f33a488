#!/bin/bash
# Installs the Debian packages named as arguments that are not installed yet
# (`make deps`, `make deps-build`). Nothing to install: nothing is asked of
# anyone, root or not. Something to install: apt-get needs root, so a user
# is told which packages and the command; as root it waits for the package
# manager's lock (another apt, unattended-upgrades, a desktop updater)
# instead of failing on it.
set -u
missing=()
for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: these Debian packages are missing: ${missing[*]}" >&2
    echo "deps: installing them needs root; run 'sudo make deps' or" >&2
    echo "deps:     sudo apt-get install ${missing[*]}" >&2
    echo "deps: then run make again as yourself (nothing else needs root)." >&2
    exit 1
fi
# How long to wait for the lock, in seconds (apt's DPkg::Lock::Timeout).
wait=${PREFS_APT_LOCK_TIMEOUT:-900}
echo "deps: installing ${missing[*]} (waiting up to ${wait}s for the package manager's lock if it is busy)"
export DEBIAN_FRONTEND=noninteractive
# apt-get waits for the dpkg lock itself (DPkg::Lock::Timeout); the lock of
# the package lists is retried here.
apt() {
    local deadline=$((SECONDS + wait)) err
    err=$(mktemp) || return 1
    while ! apt-get -o DPkg::Lock::Timeout="$wait" "$@" >/dev/null 2>"$err"; do
        if grep -q 'Could not get lock\|Unable to acquire\|Unable to lock' "$err" && [ $SECONDS -lt $deadline ]; then
            echo "deps: the package manager is busy; waiting for its lock" >&2
            sleep 5
            continue
        fi
        cat "$err" >&2
        rm -f "$err"
        return 1
    done
    rm -f "$err"
}
apt update -qq && apt install -y -qq --no-install-recommends "${missing[@]}"
