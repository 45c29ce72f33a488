# lib.sh — shared by the packaging checks: PASS/FAIL lines and the ELF
# helpers. Sourced, not run.

passed=0
failed=0

# pass NAME [DETAIL]
pass() {
    passed=$((passed + 1))
    printf 'PASS  %s%s\n' "$1" "${2:+  ($2)}"
}

# fail NAME DETAIL [LOGFILE]
fail() {
    failed=$((failed + 1))
    printf 'FAIL  %s  (%s)\n' "$1" "$2"
    if [ -n "${3:-}" ] && [ -s "$3" ]; then
        tail -n 40 "$3" | sed 's/^/      | /'
    fi
}

summary() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# elf_files DIR: every ELF file under DIR (not symlinks), one a line.
elf_files() {
    find "$1" -type f -print0 | while IFS= read -r -d '' f; do
        [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] && printf '%s\n' "$f"
    done
}

# check_elf_hardening NAME DIR: no RUNPATH or RPATH in any ELF file under
# DIR; each is BIND_NOW and has a GNU_RELRO segment.
check_elf_hardening() {
    local name=$1 dir=$2 f rel problems="" count=0
    while IFS= read -r f; do
        count=$((count + 1))
        rel=${f#"$dir"/}
        if readelf -d "$f" | grep -Eq '\((RUNPATH|RPATH)\)'; then
            problems="$problems $rel: $(readelf -d "$f" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\1 \2/p' | tr '\n' ' ');"
        fi
        readelf -d "$f" | grep -Eq '\(FLAGS\).*BIND_NOW|\(FLAGS_1\).*NOW' || problems="$problems $rel: not BIND_NOW;"
        readelf -lW "$f" | grep -q GNU_RELRO || problems="$problems $rel: no RELRO;"
    done < <(elf_files "$dir")
    if [ "$count" -eq 0 ]; then
        fail "$name" "no ELF file under $dir"
    elif [ -n "$problems" ]; then
        fail "$name" "${problems# }"
    else
        pass "$name" "$count ELF files: no RUNPATH or RPATH, BIND_NOW, RELRO"
    fi
}
