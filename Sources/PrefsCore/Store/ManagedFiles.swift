import Glibc

// Managed files written by the library's own tools (`prefs profile`): each
// replaced atomically and durably, then announced through the managed
// directory's change counter, so that every process's next read sees them.

extension PreferencesStore {
    /// Writes (`bytes`) or removes (`nil`) files under the managed
    /// directory, in order: each file is replaced atomically and durably
    /// (mode 0644, directories made 0755), a removed one's directory is
    /// removed too when it is left empty. Then the managed directory's
    /// change counter moves once, so other processes see all of them at
    /// their next read, and this store re-reads them. Stops at the first
    /// failure (the files before it are written); refuses a path outside
    /// the managed directory.
    package func replaceManagedFiles(_ changes: [(path: String, bytes: [UInt8]?)]) throws(PrefsError) {
        let root = locations.managedDirectory + "/"
        for (path, _) in changes where !path.hasPrefix(root) || path.contains("/../") || path.hasSuffix("/..") {
            throw PrefsError(.invalidArgument, "\(path) is not in the managed directory \(locations.managedDirectory)")
        }
        try withState { (s: inout State) throws(PrefsError) in
            var failure: PrefsError? = nil
            for (path, bytes) in changes {
                let dir = FileSystem.parent(of: path)
                do throws(PrefsError) {
                    if let bytes {
                        try FileSystem.makeDirectories(dir, mode: 0o755)
                        try FileSystem.withDirectoryLock(dir) { () throws(PrefsError) in
                            FileSystem.removeLeftoverTemporaries(of: path)
                            try FileSystem.replaceAtomically(path, with: bytes, mode: 0o644)
                        }
                    } else if try FileSystem.removeFile(path) {
                        _ = rmdir(dir)  // only when empty
                    }
                } catch {
                    failure = error
                    break
                }
            }
            for c in counters where c.covers(root + "x") { c.bump() }
            s.seenCounts = counters.map(\.value)
            refreshLoaded(&s)
            if let failure { throw failure }
        }
    }
}
