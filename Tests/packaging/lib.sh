# lib.sh — shared by the packaging checks: the ELF helpers, and the
# PASS/FAIL lines of Tests/lib.sh. Sourced, not run.

. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

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
