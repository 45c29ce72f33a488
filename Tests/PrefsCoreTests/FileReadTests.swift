import Glibc
import Testing

@testable import PrefsCore

/// Reading a file or a stream whole (a domain file, an import source,
/// standard input): every byte, whatever the size the file claimed, and a
/// clear refusal for what is too large or cannot be read.
@Suite("Reading files whole")
struct FileReadTests {
    /// A fresh private directory.
    func directory() throws -> String { try #require(makeTemporaryDirectory()) }

    /// `count` bytes that are not all alike.
    static func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) } }

    /// The file at `path` opened, with a stamp that claims `size` bytes.
    func opened(_ path: String, claiming size: Int64) throws -> FileSystem.OpenFile {
        let fd = try SystemCall.open(path, O_RDONLY | O_CLOEXEC)
        var stamp = FileSystem.Stamp(try SystemCall.fstat(fd))
        stamp.size = size
        return FileSystem.OpenFile(descriptor: fd, stamp: stamp, name: path)
    }

    @Test(arguments: [0, 1, 4095, 4096, 4097, 100_000])
    func aFileIsReadWhole(size: Int) throws {
        let dir = try directory()
        let bytes = Self.pattern(size)
        try #require(writeFile(dir + "/f", bytes))
        #expect(try FileSystem.readUserFile(dir + "/f") == bytes)
    }

    @Test("a file shorter or longer than its stamp says: what it holds now")
    func aFileThatChangedSize() throws {
        let dir = try directory()
        let bytes = Self.pattern(10_000)
        try #require(writeFile(dir + "/f", bytes))
        for claimed: Int64 in [0, 1, 4096, 9_999, 10_001, 20_000] {
            let file = try opened(dir + "/f", claiming: claimed)
            defer { SystemCall.close(file.descriptor) }
            #expect(try file.readAll() == bytes, "claimed \(claimed)")
        }
    }

    /// A domain's refresh reads its open file again when a first read
    /// failed: the second read starts where the file does, not where the
    /// first one stopped.
    @Test("an open file read again is read from its start")
    func anOpenFileReadAgain() throws {
        let dir = try directory()
        let bytes = Self.pattern(10_000)
        try #require(writeFile(dir + "/f", bytes))
        let file = try opened(dir + "/f", claiming: 10_000)
        defer { SystemCall.close(file.descriptor) }
        var half = [UInt8](repeating: 0, count: 4_000)
        #expect(try half.withUnsafeMutableBytes { try SystemCall.read(file.descriptor, into: $0) } == 4_000)
        #expect(try file.readAll() == bytes)
        #expect(try file.readAll() == bytes)
    }

    @Test("a stream is read to its end, in as many reads as it takes")
    func aStream() throws {
        let (readEnd, writeEnd) = try SystemCall.pipe()
        defer { SystemCall.close(readEnd) }
        let bytes = Self.pattern(50_000)  // within the pipe's buffer
        try FileSystem.writeAll(writeEnd, bytes)
        SystemCall.close(writeEnd)
        #expect(try FileSystem.readToEnd(descriptor: readEnd, name: "standard input") == bytes)
    }

    @Test("a file or a stream over the maximum is refused")
    func tooLarge() throws {
        let dir = try directory()
        let fd = try SystemCall.open(dir + "/big", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        try SystemCall.ftruncate(fd, FileSystem.maximumFileSize + 1)  // sparse: no disk used
        SystemCall.close(fd)
        let error = #expect(throws: PrefsError.self) { try FileSystem.readUserFile(dir + "/big") }
        #expect(error?.message == "cannot read \(dir)/big: larger than the 64 MiB a preferences file may hold")
        // A file that claims to fit but holds more.
        let grown = try opened(dir + "/big", claiming: 10)
        defer { SystemCall.close(grown.descriptor) }
        let grownError = #expect(throws: PrefsError.self) { try grown.readAll() }
        #expect(grownError?.message.hasPrefix("cannot read \(dir)/big: larger than the 64 MiB") == true)
        // A stream that never ends.
        let endless = #expect(throws: PrefsError.self) { try FileSystem.readUserFile("/dev/zero") }
        #expect(endless?.message.hasPrefix("cannot read /dev/zero: larger than") == true)
    }

    @Test("a read that fails is reported, with its name, in either phase")
    func aFailingRead() throws {
        let dir = try directory()
        // A directory's descriptor: read fails with EISDIR, first into the
        // room for the stamp's size, then (no size claimed) into the probe.
        for claimed: Int64 in [4096, 0] {
            let file = try opened(dir, claiming: claimed)
            defer { SystemCall.close(file.descriptor) }
            let error = #expect(throws: PrefsError.self) { try file.readAll() }
            #expect(error?.message == Errno(EISDIR).io("cannot read", dir).message, "claimed \(claimed)")
        }
        let fd = try SystemCall.open(dir, O_RDONLY | O_CLOEXEC)
        defer { SystemCall.close(fd) }
        let error = #expect(throws: PrefsError.self) { try FileSystem.readToEnd(descriptor: fd, name: "standard input") }
        #expect(error?.message == Errno(EISDIR).io("cannot read", "standard input").message)
        let refused = #expect(throws: PrefsError.self) { try FileSystem.readUserFile(dir) }
        #expect(refused?.message == "cannot read \(dir): it is a directory")
    }
}
