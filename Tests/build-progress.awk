#!/usr/bin/awk -f
#
# build-progress.awk — condenses the output of `swift build` into one line
# per module compiled and per product linked, so that a long build under a
# sanitizer shows it is moving without printing every file:
#
#   swift build ... 2>&1 | tee "$LOG" | awk -v tag=tsan -f Tests/build-progress.awk
#
# prints "tsan:   compiling PrefsCore", "tsan:   linking prefs-tool", ...
# then the "Build complete!" line; error lines (error:) pass through as they
# come. The whole output belongs in a log (tee) for when the build fails.

BEGIN { if (tag == "") tag = "build" }

# [12/80] Compiling PrefsCore XMLReader.swift
/^\[[0-9]+\/[0-9]+\] (Compiling|Linking) / {
    verb = ($2 == "Linking") ? "linking" : "compiling"
    what = $3
    if (verb == "linking") sub(/^.*\//, "", what)
    if (!((verb, what) in seen)) {
        seen[verb, what] = 1
        printf "%s:   %s %s\n", tag, verb, what
        fflush()
    }
    next
}
/error:|^Build complete!|^Build of product/ { printf "%s:   %s\n", tag, $0; fflush() }
