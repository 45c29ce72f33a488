# Benchmarks/machine.sh: sourced by the benchmark scripts. Sets, for the
# reports, `machine` (cores, CPU, memory, kernel, Debian release) and
# `library` (the libprefs commit built from $root, and whether Sources,
# include or Package.swift had uncommitted changes).
cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
mem_total=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
machine="$(nproc) cores, $cpu_model, $mem_total RAM, Linux $(uname -r), Debian $(cat /etc/debian_version 2>/dev/null || echo '?')"
if git -C "$root" rev-parse --show-toplevel 2>/dev/null | grep -qx "$root"; then
    library="libprefs $(git -C "$root" rev-parse --short HEAD)"
    changed=$(git -C "$root" status --porcelain -- Sources include Package.swift | wc -l)
    [ "$changed" = 0 ] || library+=" plus $changed uncommitted changes to Sources, include or Package.swift"
else
    library="libprefs built from $root"
fi
