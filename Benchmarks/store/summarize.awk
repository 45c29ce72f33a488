# summarize.awk: turns the "R <case> <contender> <unit> <iterations> <samples...>"
# lines of the benchmark programs into Markdown tables (median, quartiles,
# min and max over every sample of a case, whichever process gave it), and
# the ratios of each contender's median to libprefs'.
$1 == "R" {
    k = $2 SUBSEP $3
    if (!(k in count)) { order[++nk] = k; unit[k] = $4; iters[k] = $5 }
    for (i = 6; i <= NF; i++) samples[k, ++count[k]] = $i + 0
    if (!($2 in seen)) { seen[$2] = 1; cases[++nc] = $2 }
}
END {
    print "| case | contender | unit | samples | ops per sample | median | IQR (q1–q3) | min–max |"
    print "|---|---|---|---:|---:|---:|---:|---:|"
    for (o = 1; o <= nk; o++) {
        k = order[o]; split(k, parts, SUBSEP); n = count[k]
        delete v
        for (i = 1; i <= n; i++) v[i] = samples[k, i]
        sort(v, n)
        med[k] = pct(v, n, 0.5)
        printf "| %s | %s | %s | %d | %s | %s | %s–%s | %s–%s |\n", parts[1], parts[2], unit[k], n, iters[k], \
            fmt(med[k]), fmt(pct(v, n, 0.25)), fmt(pct(v, n, 0.75)), fmt(v[1]), fmt(v[n])
    }
    print ""
    print "Ratios of medians (the other contender's time divided by libprefs'; above 1: libprefs is faster):"
    print ""
    print "| case | libprefs | Foundation | dconf | Foundation ÷ libprefs | dconf ÷ libprefs |"
    print "|---|---:|---:|---:|---:|---:|"
    for (c = 1; c <= nc; c++) {
        name = cases[c]; p = name SUBSEP "libprefs"; f = name SUBSEP "Foundation"; d = name SUBSEP "dconf"
        if (!(p in med)) continue
        printf "| %s | %s %s | %s | %s | %s | %s |\n", name, fmt(med[p]), unit[p], \
            (f in med) ? fmt(med[f]) : "–", (d in med) ? fmt(med[d]) : "–", \
            (f in med && med[p] > 0) ? sprintf("%.2f×", med[f] / med[p]) : "–", \
            (d in med && med[p] > 0) ? sprintf("%.2f×", med[d] / med[p]) : "–"
    }
}
