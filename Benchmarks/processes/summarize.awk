# summarize.awk: turns results/raw.txt of the many-processes benchmark into
# the Markdown tables of results/summary.md.
#
# Input: "R <case> <contender> <unit> <count> <samples...>" lines (a sample
# "x" is a trial that never saw the value within its timeout) and
# "N <case> <contender> <text>" lines. Samples of the same case and
# contender from several processes or runs are pooled. Percentiles are
# interpolated between the sorted samples (p50 is the median).
function ratio(a, b) { return (a != "" && b != "" && b > 0) ? sprintf("%.1f×", a / b) : "–" }
# stats(case, contender): fills v[1..n] with the sorted numeric samples and
# sets n, never (samples "x"), total (all samples) and sum.
function stats(c, who,    k, i) {
    k = c SUBSEP who; n = 0; never = 0; sum = 0; total = count[k] + 0
    delete v
    for (i = 1; i <= total; i++) {
        if (samples[k, i] == "x") never++
        else { v[++n] = samples[k, i] + 0; sum += samples[k, i] }
    }
    sort(v, n)
}
function has(c, who) { return (c SUBSEP who) in count }
function list(c, who,    k, i, s) {
    k = c SUBSEP who; s = ""
    for (i = 1; i <= count[k]; i++) s = s (i > 1 ? ", " : "") samples[k, i]
    return s
}
function verdict(ok) { return ok ? "met" : "**MISSED**" }

$1 == "R" {
    k = $2 SUBSEP $3
    for (i = 6; i <= NF; i++) samples[k, ++count[k]] = $i
    next
}
$1 == "N" {
    notes[++nnotes] = $0
    if ($2 == "lost-keys" && match($0, /expected=[0-9]+/)) expected = substr($0, RSTART + 9, RLENGTH - 9)
    next
}
END {
    split("libprefs Foundation Foundation+sync", who, " ")

    print "### 1. Lost keys: 16 processes, one domain"
    print ""
    print "| contender | runs | keys lost of " expected ", each run | the same files read by the other library | time per round (release to the last synchronize), median [min–max] ms |"
    print "|---|---:|---|---|---:|"
    for (w = 1; w <= 2; w++) {
        if (!has("lost-keys", who[w])) continue
        other = (w == 1) ? "libprefs-by-Foundation" : "Foundation-by-libprefs"
        stats("lost-round", who[w])
        printf "| %s | %d | %s | %s | %s [%s–%s] |\n", who[w], count["lost-keys" SUBSEP who[w]], list("lost-keys", who[w]),
            has("lost-keys", other) ? list("lost-keys", other) : "–", fmt(pct(v, n, 0.5)), fmt(v[1]), fmt(v[n])
    }
    print ""

    print "### 2. set + synchronize of one key in the 1,000-key domain"
    print ""
    print "| contender | iterations | median ms | p90 ms | min ms | max ms |"
    print "|---|---:|---:|---:|---:|---:|"
    for (w = 1; w <= 2; w++) {
        if (!has("set-sync", who[w])) continue
        stats("set-sync", who[w])
        med[w] = pct(v, n, 0.5); p90[w] = pct(v, n, 0.9)
        printf "| %s | %d | %s | %s | %s | %s |\n", who[w], n, fmt(med[w]), fmt(p90[w]), fmt(v[1]), fmt(v[n])
    }
    print ""
    print "Foundation ÷ libprefs: median " ratio(med[2], med[1]) ", p90 " ratio(p90[2], p90[1]) " (above 1: libprefs is faster)."
    print ""

    print "### 3a. Does the first read after the writer's synchronize see the new value?"
    print ""
    print "| reader | trials | first read saw the new value |"
    print "|---|---:|---:|"
    for (w = 1; w <= 3; w++) {
        if (!has("first-read", who[w])) continue
        stats("first-read", who[w])
        printf "| %s | %d | %d (%.0f%%) |\n", who[w], n, sum, n ? 100 * sum / n : 0
        hits[w] = sum; trials[w] = n
    }
    print ""

    print "### 3b. Polling reader: from the writer's set call until a read returns the new value"
    print ""
    print "| reader | trials | seen before the timeout | from set: median ms | p90 ms | max ms | from synchronize's return: median ms | p90 ms | reads per trial, median |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (w = 1; w <= 3; w++) {
        if (!has("poll-from-set", who[w])) continue
        stats("poll-from-set", who[w])
        pm[w] = pct(v, n, 0.5); pp[w] = pct(v, n, 0.9); seen = n; all = total; mx = v[n]
        stats("poll-from-sync", who[w])
        sm = pct(v, n, 0.5); sp = pct(v, n, 0.9)
        stats("poll-reads", who[w])
        printf "| %s | %d | %d | %s | %s | %s | %s | %s | %s |\n", who[w], all, seen, fmt(pm[w]), fmt(pp[w]), fmt(mx),
            fmt(sm), fmt(sp), fmt(pct(v, n, 0.5))
    }
    print ""
    if (pm[1] != "" && pm[3] != "")
        print "Foundation+sync ÷ libprefs (from set): median " ratio(pm[3], pm[1]) ", p90 " ratio(pp[3], pp[1]) "."
    print ""

    print "### 4. Observer in another process: from the writer's calls until the callback runs"
    print ""
    print "| observer | trials | delivered within the timeout | from set: median ms | p90 ms | max ms | from synchronize's return: median ms | p90 ms | max ms |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (w = 1; w <= 3; w++) {
        if (!has("observer-from-set", who[w])) continue
        stats("observer-from-set", who[w])
        om[w] = pct(v, n, 0.5); op[w] = pct(v, n, 0.9); omax[w] = n ? v[n] : ""; delivered[w] = n; otrials[w] = total
        stats("observer-from-sync", who[w])
        printf "| %s | %d | %d | %s | %s | %s | %s | %s | %s |\n", who[w], total, delivered[w], fmt(om[w]), fmt(op[w]),
            fmt(omax[w]), fmt(pct(v, n, 0.5)), fmt(pct(v, n, 0.9)), fmt(n ? v[n] : "")
    }
    print ""

    print "Notes from the processes:"
    print ""
    for (i = 1; i <= nnotes; i++) {
        t = notes[i]; sub(/^N /, "", t)
        print "- " t
    }
    print ""

    print "### Targets (libprefs)"
    print ""
    stats("lost-keys", "libprefs")
    printf "- 0 keys lost of %s, in every run: %s (lost: %s in %d runs; Foundation: %s)\n", expected,
        verdict(n > 0 && v[n] == 0), list("lost-keys", "libprefs"), n,
        has("lost-keys", "Foundation") ? list("lost-keys", "Foundation") : "not run"
    printf "- the next read after synchronize sees the new value in every trial: %s (%d of %d; Foundation %d of %d, Foundation+sync %d of %d)\n",
        verdict(trials[1] > 0 && hits[1] == trials[1]), hits[1], trials[1], hits[2], trials[2], hits[3], trials[3]
    printf "- cross-process observer delivery under 50 ms, every trial: %s (delivered %d of %d; from set median %s, p90 %s, max %s ms; Foundation delivered %d of %d)\n",
        verdict(otrials[1] > 0 && delivered[1] == otrials[1] && omax[1] < 50), delivered[1], otrials[1],
        fmt(om[1]), fmt(op[1]), fmt(omax[1]), delivered[2], otrials[2]
}
