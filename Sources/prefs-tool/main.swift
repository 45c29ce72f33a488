import Glibc

// `prefs`: the defaults(1) grammar over the library's store. Everything that
// decides what a preference is, where it lives and how it is written is in
// PrefsCore; this target only reads the command line, calls the store and
// prints. Exit status: 0 success, 1 absent or refused, 64 usage error.

let status: Int32
do throws(Failure) {
    try Command.run(Array(CommandLine.arguments.dropFirst()))
    status = 0
} catch {
    Output.standard.flush()
    error.report()
    status = error.status
}
Output.standard.flush()
exit(status)
