import Glibc
import PrefsCore

/// `prefs watch <domain> [<key>]`: prints each change of the domain (or of
/// one key) until interrupted.
///
/// The library has no observer API yet (no PrefsAddObserver in Prefs.h), so
/// this polls: every 100 ms it asks the store to synchronize the domain,
/// which re-reads the file only when its stamp (inode, size, times) changed,
/// and compares the values with those last seen. Each change prints
/// `key = value;` (the value as `prefs read` prints it inside a domain) or
/// `key deleted`, and is flushed at once.
enum Watch {
    static let interval = timespec(tv_sec: 0, tv_nsec: 100_000_000)

    static func run(_ args: ArraySlice<String>, _ host: HostChoice) throws(Failure) {
        guard args.count == 1 || args.count == 2 else { throw .usage("usage: prefs watch <domain> [<key>]") }
        let target = try Target.resolve(args.first!, host: host)
        let key = args.count == 2 ? PropertyList.Key(args.last!) : nil
        var last = try target.values()
        Output.standard.flush()

        // Interrupted: leave quietly (everything printed was already flushed).
        signal(SIGINT) { _ in _exit(0) }
        signal(SIGTERM) { _ in _exit(0) }

        var reported = ""
        while true {
            var delay = interval, left = timespec()
            while nanosleep(&delay, &left) != 0 { delay = left }
            let now: PropertyListDictionary
            do throws(PrefsError) {
                _ = try target.store.synchronize(target.id)
                if let problem = try target.store.problem(in: target.id) { throw problem }
                now = try target.store.values(in: target.id)
                reported = ""
            } catch {
                // Keep the values last seen: a file that does not parse has
                // not lost its keys. Say so once per problem.
                if error.message != reported {
                    reported = error.message
                    Output.error.line("prefs: \(error.message)")
                    Output.error.flush()
                }
                continue
            }
            var keys = Set(now.keys).union(last.keys)
            if let key { keys = keys.contains(key) ? [key] : [] }
            var printed = false
            for k in keys.sorted() {
                let old = last[k], new = now[k]
                if old == new { continue }
                if let new {
                    Output.standard.line("\(OldStylePlist.quotedIfNeeded(k.string)) = \(OldStylePlist.format(new));")
                } else {
                    Output.standard.line("\(OldStylePlist.quotedIfNeeded(k.string)) deleted")
                }
                printed = true
            }
            if printed { Output.standard.flush() }
            last = now
        }
    }
}
