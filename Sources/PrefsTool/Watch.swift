import Glibc
import PrefsCore

/// `prefs watch <domain> [<key>]`: prints each change of the domain (or of
/// one key) until interrupted.
///
/// What is printed is always the difference between the domain's stored
/// values now and when last looked at: `key = value;` (the value as
/// `prefs read` prints it inside a domain) or `key deleted`, flushed at once.
///
/// When to look: for a named domain, the library's observer of the
/// application (`PreferencesStore.addObserver`, which notices other
/// processes' writes through inotify) wakes the command at once, and a check
/// every second catches what an observer of the search list cannot see (a
/// change hidden by a value higher in the search list). A domain named by a
/// file path has no application to observe: it is checked every 100 ms. A
/// check asks the store to synchronize the domain, which re-reads the file
/// only when its stamp (inode, size, times) changed.
enum Watch {
    static func run(_ args: ArraySlice<String>, _ host: HostChoice) throws(Failure) {
        guard args.count == 1 || args.count == 2 else { throw .usage("usage: prefs watch <domain> [<key>]") }
        let target = try Target.resolve(args.first!, host: host)
        let keyName = args.count == 2 ? args.last! : nil
        let key = keyName.map { PropertyList.Key($0) }
        var last = try target.values()
        // Standard output that cannot be written (a closed pipe, a full
        // disk) ends the watch: the caller reports it and exits 1.
        guard Output.standard.finish() else { return }

        // Interrupted: leave quietly (everything printed was already flushed).
        signal(SIGINT) { _ in _exit(0) }
        signal(SIGTERM) { _ in _exit(0) }

        let wake = target.isFile ? nil : observe(target, keyName)
        var reported = ""
        while true {
            if let wake { wait(wake, milliseconds: 1000) } else { sleep(milliseconds: 100) }
            let now: PropertyListDictionary
            do throws(PrefsError) {
                _ = try target.store.synchronize(target.id)
                if let problem = try target.store.problem(in: target.id) { throw problem }
                now = try target.storedValues()
                reported = ""
            } catch {
                // Keep the values last seen: a file that does not parse has
                // not lost its keys. Say so once per problem.
                if error.message != reported {
                    reported = error.message
                    Output.error.line("prefs: \(shown(error.message))")
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
            if printed, !Output.standard.finish() { return }
            last = now
        }
    }

    /// A pipe whose read end becomes readable when the library's observer of
    /// the target's application reports a change; `nil` when no observer
    /// could be registered (the command then checks every second only).
    private static func observe(_ target: Target, _ key: String?) -> Int32? {
        guard let (readEnd, writeEnd) = try? SystemCall.pipe(nonblocking: true) else { return nil }
        do throws(PrefsError) {
            // A command that only reads makes no directory: one made later
            // is watched from the next check that finds it.
            _ = try target.store.addObserver(application: target.id.application, key: key, makingDirectories: false) { _, _ in
                SystemCall.signal(writeEnd, 1)  // a full pipe already means "look"
            }
        } catch {
            SystemCall.close(readEnd)
            SystemCall.close(writeEnd)
            return nil
        }
        return readEnd
    }

    /// Waits until `fd` is readable or `milliseconds` pass, then empties it.
    private static func wait(_ fd: Int32, milliseconds: Int32) {
        var p = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        _ = try? SystemCall.poll(&p, count: 1, milliseconds)
        var buffer = [UInt8](repeating: 0, count: 64)
        while (try? buffer.withUnsafeMutableBytes { b in Result { () throws(Errno) in try SystemCall.read(fd, into: b) } }.get()) ?? 0 > 0 {}
    }

    private static func sleep(milliseconds: Int) {
        var delay = timespec(tv_sec: 0, tv_nsec: milliseconds * 1_000_000), left = timespec()
        while nanosleep(&delay, &left) != 0 { delay = left }
    }
}
