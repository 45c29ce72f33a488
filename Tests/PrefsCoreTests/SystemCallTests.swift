import Glibc
import Testing

@testable import PrefsCore

/// The one layer of system calls: each call's failure arrives as its
/// `errno`, and short or interrupted transfers are finished by the callers
/// built on it.
@Suite("System calls")
struct SystemCallTests {
    /// A fresh private directory.
    func directory() throws -> String {
        var template = Array("/tmp/prefs-syscall.XXXXXX".utf8CString)
        let made = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) })
        return String(cString: made)
    }

    @Test("a failed call throws its errno, and the error names the path")
    func errnoOfFailure() throws {
        let dir = try directory()
        #expect(throws: Errno(ENOENT)) { try SystemCall.open(dir + "/missing", O_RDONLY) }
        #expect(throws: Errno(ENOENT)) { try SystemCall.directoryEntries(dir + "/missing") }
        #expect(throws: Errno(EEXIST)) { try SystemCall.mkdir(dir, 0o700) }
        let message = Errno(ENOENT).io("cannot open", dir + "/missing").message
        #expect(message.hasPrefix("cannot open \(dir)/missing: ") && message.count > "cannot open \(dir)/missing: ".count)
    }

    @Test("read, write, pread and rename through the layer")
    func roundTrip() throws {
        let dir = try directory()
        let fd = try SystemCall.open(dir + "/a", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try FileSystem.writeAll(fd, Array("hello, world".utf8))
        try SystemCall.fsync(fd)
        SystemCall.close(fd)
        try SystemCall.rename(dir + "/a", dir + "/b")
        #expect(!SystemCall.exists(dir + "/a") && SystemCall.exists(dir + "/b"))
        let rfd = try SystemCall.open(dir + "/b", O_RDONLY | O_CLOEXEC)
        defer { SystemCall.close(rfd) }
        #expect(try SystemCall.fstat(rfd).st_size == 12)
        var tail = [UInt8](repeating: 0, count: 20)
        #expect(try FileSystem.readFully(rfd, &tail, at: 7) == 5)
        #expect(tail.prefix(5).elementsEqual("world".utf8))
        #expect(try SystemCall.directoryEntries(dir) == ["b"])
    }

    @Test("lstat and readlink see the link itself")
    func links() throws {
        let dir = try directory()
        #expect(symlink("target", dir + "/link") == 0)
        #expect(try SystemCall.lstat(dir + "/link").st_mode & S_IFMT == S_IFLNK)
        #expect(try SystemCall.readlink(dir + "/link") == "target")
        #expect(throws: Errno(ENOENT)) { try SystemCall.stat(dir + "/link") }
        try SystemCall.unlink(dir + "/link")
        #expect(throws: Errno(ENOENT)) { try SystemCall.lstat(dir + "/link") }
    }

    @Test("a wake-up byte crosses a pipe")
    func wakePipe() throws {
        let (r, w) = try SystemCall.pipe(nonblocking: true)
        defer { SystemCall.close(r); SystemCall.close(w) }
        #expect(SystemCall.takeSignal(r) == nil)
        SystemCall.signal(w, 7)
        var fds = [pollfd(fd: r, events: Int16(POLLIN), revents: 0)]
        #expect(try SystemCall.poll(&fds, count: 1, 1000) == 1)
        #expect(SystemCall.takeSignal(r) == 7)
    }
}
