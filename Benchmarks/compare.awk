# compare.awk: turns the "SIZE MEASURE CONTENDER KIND VALUE" lines of
# compare.sh into one Markdown table per measure: instructions first, then
# the medians of wall-clock and CPU time, each with its ratio to libprefs'
# (the contender's figure divided by libprefs': above 1, libprefs does less).
$2 == "bytes" { bytes[$1, $3] = $4; next }
{
    k = $1 SUBSEP $2 SUBSEP $3
    if (!(($1) in seen_size)) { seen_size[$1] = 1; sizes[++ns] = $1 }
    if (!(k in seen)) { seen[k] = 1 }
    if ($4 == "dnf") dnf[k] = "did not finish in " $5 " min"
    else if ($4 == "skipped") dnf[k] = "not tried (did not finish at " group($5) " keys)"
    else v[k, $4] = $5
}
function group(n) { # 1234567 -> 1,234,567
    n = sprintf("%d", n)
    while (n ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]([,]|$)/, ",&", n)
    return n
}
function fmt(x) {
    if (x == "") return "–"
    if (x >= 1000) return group(x + 0.5)
    if (x >= 100) return sprintf("%.0f", x)
    if (x >= 10) return sprintf("%.1f", x)
    if (x >= 1) return sprintf("%.2f", x)
    return sprintf("%.3f", x)
}
function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "–" : sprintf("%.2f×", a / b) }
function instr(x) {
    if (x == "") return "–"
    if (x >= 1e9) return sprintf("%.2f G", x / 1e9)
    if (x >= 1e6) return sprintf("%.2f M", x / 1e6)
    return group(x)
}
END {
    split("first hit set sync1 read parse-xml parse-binary", measures, " ")
    title["first"] = "Start-up + first read of one key, a new process (ms)"
    title["hit"] = "Cached read of an existing key (ns per read)"
    title["set"] = "Set of an existing key, in memory (ns per set)"
    title["sync1"] = "One set + synchronize of one key (ms; instructions: the client process's)"
    title["read"] = "`prefs read com.example.bench key0500` / `dconf read /bench/key0500`, whole process (ms)"
    title["parse-xml"] = "Parse the domain's XML file (ms)"
    title["parse-binary"] = "Parse the domain's binary file (ms)"
    split("libprefs dconf QSettings Foundation libplist", who, " ")
    for (m = 1; m <= 7; m++) {
        me = measures[m]
        rows = 0
        for (s = 1; s <= ns; s++) for (w = 1; w <= 5; w++) if ((sizes[s], me, who[w]) in seen) rows++
        if (!rows) continue
        print "#### " title[me]
        print ""
        print "| keys | contender | instructions | ÷ libprefs | wall median | ÷ libprefs | CPU | ÷ libprefs |"
        print "|---:|---|---:|---:|---:|---:|---:|---:|"
        for (s = 1; s <= ns; s++) {
            size = sizes[s]; base = size SUBSEP me SUBSEP "libprefs"
            label = group(size)
            if (me ~ /^parse-/) {
                b = bytes[size, me == "parse-xml" ? "xml" : "binary"]
                label = label " (" (b >= 1e6 ? sprintf("%.1f MB", b / 1e6) : sprintf("%.0f KB", b / 1e3)) ")"
            }
            for (w = 1; w <= 5; w++) {
                k = size SUBSEP me SUBSEP who[w]
                if (!(k in seen)) continue
                if (k in dnf && !((k, "instr") in v) && !((k, "wall") in v)) {
                    printf "| %s | %s | %s | | | | | |\n", label, who[w], dnf[k]
                    continue
                }
                i = v[k, "instr"]; wl = v[k, "wall"]; c = v[k, "cpu"]
                icell = (i == "" && (k in dnf)) ? dnf[k] : instr(i)
                printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", label, who[w], icell, ratio(i, v[base, "instr"]), \
                    fmt(wl), ratio(wl, v[base, "wall"]), fmt(c), ratio(c, v[base, "cpu"])
            }
        }
        print ""
    }
    print "Instructions: valgrind --tool=callgrind, one run (hit, set: the calling thread's inside the loop, the difference"
    print "of runs of 11,000 and 1,000 operations; sync1: every thread's, of runs of two rounds and one). Wall: medians (hyperfine"
    print "for whole processes; the bench programs' loops otherwise). CPU: user + system time of whole processes (mean),"
    print "the thread's CPU time of loops (median). \"did not finish\": cut off by --timeout."
}
