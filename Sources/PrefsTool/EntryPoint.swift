import Glibc

// `prefs`: the defaults(1) grammar over the library's store. Everything that
// decides what a preference is, where it lives and how it is written is in
// PrefsCore; this target only reads the command line, calls the store and
// prints. It is linked into libprefs.so, so that the command and every C
// program share one copy of the core and of the Swift runtime; `bin/prefs`
// is a C `main` that calls `prefs_tool_main` (programs/prefs.c).

/// Runs the `prefs` command with the command line `argv[0..<argc]` (the
/// program name first, as `main` receives it) and returns its exit status:
/// 0 success, 1 absent or refused, 64 usage error. Everything it prints is
/// flushed before it returns.
///
/// This is a private interface between libprefs.so and the `prefs` program
/// built from the same source, not part of the C API: it is declared in no
/// installed header and exported under its own version node,
/// `LIBPREFS_PRIVATE` (Sources/Prefs/exports.map), so that a `prefs` binary
/// never binds to a library that lacks it, and it may change in any
/// release. Install `prefs` with the libprefs.so it was built with.
///
/// Ownership: `argv` and its strings are borrowed for the call.
///
/// Thread safety: none. It is a program's whole `main`: call it once, from
/// the main thread. It writes file descriptors 1 and 2 unsynchronised, and
/// `prefs watch` installs SIGINT and SIGTERM handlers and leaves only by
/// `_exit` from them, never returning.
/// Invoked under the name `defaults` (`$LIBEXECDIR/prefs/defaults`, for
/// scripts and configuration tools written for macOS), the command is the
/// same; only its usage text names it `defaults`.
///
/// The name the command was invoked under: `prefs`, or `defaults`.
nonisolated(unsafe) var programName = "prefs"

@c(prefs_tool_main)
public func prefsToolMain(_ argc: Int32, _ argv: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    var arguments: [String] = []
    if argc > 0, let p = argv[0], String(cString: p).split(separator: "/").last == "defaults" {
        programName = "defaults"
    }
    if argc > 1 {
        arguments.reserveCapacity(Int(argc) - 1)
        for i in 1..<Int(argc) {
            guard let p = argv[i] else { break }
            arguments.append(String(cString: p))
        }
    }
    let status: Int32
    do throws(Failure) {
        try Command.run(arguments)
        status = 0
    } catch {
        Output.standard.flush()
        error.report()
        status = error.status
    }
    return finish(status)
}

/// Flushes both outputs and gives the exit status: `status`, or 1 when
/// standard output could not be written (a full disk, a closed pipe), which
/// is then said on standard error. A command whose output was lost has not
/// succeeded.
func finish(_ status: Int32) -> Int32 {
    var status = status
    if !Output.standard.finish() {
        Output.error.line("prefs: cannot write standard output: \(String(cString: strerror(Output.standard.failure)))")
        if status == 0 { status = 1 }
    }
    _ = Output.error.finish()
    return status
}
