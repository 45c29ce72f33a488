# stats.awk: the helpers the benchmarks' summarize.awk scripts share
# (awk -f Benchmarks/stats.awk -f summarize.awk).

# Sorts a[1..n] ascending (insertion sort: the sample counts are small).
function sort(a, n,    i, j, x) {
    for (i = 2; i <= n; i++) {
        x = a[i]
        for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]
        a[j + 1] = x
    }
}
# The p-quantile (0..1) of the sorted a[1..n], interpolated between
# samples; "" when there are none.
function pct(a, n, p,    pos, lo, f) {
    if (n == 0) return ""
    pos = 1 + p * (n - 1); lo = int(pos); f = pos - lo
    return lo < n ? a[lo] + f * (a[lo + 1] - a[lo]) : a[n]
}
# Three significant figures or so; "–" for no value.
function fmt(x) {
    if (x == "") return "–"
    if (x >= 100 || x <= -100) return sprintf("%.0f", x)
    if (x >= 10 || x <= -10) return sprintf("%.1f", x)
    return sprintf("%.2f", x)
}
