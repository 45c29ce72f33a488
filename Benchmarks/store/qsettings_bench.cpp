/*
 * qsettings_bench.cpp: Qt's QSettings (IniFormat) with the cases of
 * prefs_bench.c, one case per process, on $XDG_CONFIG_HOME/bench.ini
 * written by make_fixture.sh.
 *
 *   qsettings_bench hit RUNS ITERS    value() of an existing key, cached
 *   qsettings_bench set RUNS ITERS    setValue() of an existing key
 *   qsettings_bench sync1 RUNS        setValue() of one key, then sync()
 *   qsettings_bench first             a new process's first value() (exit status only)
 */
#include <QSettings>
#include <QString>
#include <QVariant>
#include <cstdlib>

extern "C" {
#include "bench.h"
}

static const char *contender = "QSettings";

static QString path()
{
    const char *dir = getenv("XDG_CONFIG_HOME");
    return QString::fromUtf8(dir ? dir : ".") + QStringLiteral("/bench.ini");
}

static void reads(QSettings &s, int runs, long iters)
{
    double wall[BENCH_MAX_SAMPLES], cpu[BENCH_MAX_SAMPLES];
    const QString key = QStringLiteral("FontName");
    if (s.value(key).toString() != QStringLiteral("Helvetica Neue"))
        bench_die("FontName does not hold its value");
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now_ns(), c0 = bench_cpu_ns();
        for (long i = 0; i < iters; i++) {
            QVariant v = s.value(key);
            (void)v;
        }
        cpu[r] = (bench_cpu_ns() - c0) / (double)iters;
        wall[r] = (bench_now_ns() - t0) / (double)iters;
    }
    bench_report_pair("hit", contender, iters, wall, cpu, runs);
}

static void sets(QSettings &s, int runs, long iters)
{
    double wall[BENCH_MAX_SAMPLES], cpu[BENCH_MAX_SAMPLES];
    const QString key = QStringLiteral("FontSize");
    if (!s.contains(key))
        bench_die("FontSize is not in the file");
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now_ns(), c0 = bench_cpu_ns();
        for (long i = 0; i < iters; i++)
            s.setValue(key, (int)(12 + (i & 1) * 2));
        cpu[r] = (bench_cpu_ns() - c0) / (double)iters;
        wall[r] = (bench_now_ns() - t0) / (double)iters;
    }
    bench_report_pair("set", contender, iters, wall, cpu, runs);
}

static void sync1(QSettings &s, int runs)
{
    double samples[BENCH_MAX_SAMPLES];
    if (!s.contains(QStringLiteral("key0500")))
        bench_die("key0500 is not in the file");
    for (int r = 0; r < runs; r++) {
        s.setValue(QStringLiteral("FontSize"), 100 + r);
        double t0 = bench_now_ns();
        s.sync();
        samples[r] = (bench_now_ns() - t0) / 1e6;
        if (s.status() != QSettings::NoError)
            bench_die("QSettings::sync failed");
    }
    bench_report("sync1", contender, "ms", 1, samples, runs);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        bench_die("usage: qsettings_bench hit|set RUNS ITERS | sync1 RUNS | first");
    const char *mode = argv[1];
    int runs = (int)bench_arg(argc, argv, 2, 5);
    long iters = bench_arg(argc, argv, 3, 10000);
    if (runs < 1 || runs > BENCH_MAX_SAMPLES)
        bench_die("RUNS must be 1 to 64");
    QSettings s(path(), QSettings::IniFormat);
    if (strcmp(mode, "first") == 0)
        return s.value(QStringLiteral("key0500")).isValid() ? 0 : 1;
    if (strcmp(mode, "hit") == 0)
        reads(s, runs, iters);
    else if (strcmp(mode, "set") == 0)
        sets(s, runs, iters);
    else if (strcmp(mode, "sync1") == 0)
        sync1(s, runs);
    else
        bench_die("unknown case");
    return 0;
}
