// Helpers shared by the fuzz targets (compiled into each of them).

/// The input split at NUL bytes into words, each decoded as UTF-8 (invalid
/// bytes become U+FFFD, as they do when a command line is read).
func words(_ bytes: UnsafeRawBufferPointer) -> [String] {
    bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
}

/// Stops the run with `message`: libFuzzer and the replay driver report it
/// as a crash, with the input that caused it.
func failure(_ message: String) -> Never {
    fatalError("fuzz invariant: " + message)
}
