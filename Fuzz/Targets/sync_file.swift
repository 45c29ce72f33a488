import Glibc

@testable import PrefsCore

/// A machine file in a sync folder, which any machine (or anyone able to
/// write the folder) shapes. The input is written as one machine's file
/// beside a well-formed file of another machine; the folder is read and
/// merged. Nothing may crash or hang; the reader creates nothing; what
/// decodes survives its own encoding unchanged; the merge is the same in
/// either order and idempotent; no entry carries a time the clock cannot
/// pass (beyond its range) or a key too long to sync, and no application
/// keeps more than its limits (1,024 keys, 1 MB).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: data, count: size))
    let fuzzed = MachineID("0000000000000000000000000000000f")!
    // Decoded directly.
    if let (file, _) = try? SyncFile.decode(bytes, machine: fuzzed) {
        for (_, app) in file.applications {
            for (key, record) in app.values {
                guard key.string.utf8.count <= SyncLimits.maximumKeyLength, record.time.wall <= SyncTimestamp.maximumWall,
                    record.time.machine == fuzzed
                else { failure("an entry the decoder should have refused was kept") }
            }
            guard app.liveCount <= SyncLimits.maximumKeys, app.liveBytes <= SyncLimits.maximumBytes else {
                failure("an application past the limits was kept")
            }
        }
        guard let again = try? file.encoded() else { return 0 }  // e.g. a value only XML cannot carry: fine
        guard let (back, problems) = try? SyncFile.decode(again, machine: fuzzed), back == file, problems.isEmpty else {
            failure("a decoded machine file does not survive its own encoding")
        }
        let a = SyncState(merging: [good, file]).applications
        guard a == SyncState(merging: [file, good]).applications, a == SyncState(merging: [file, good, file, good]).applications
        else { failure("the merge depends on the order") }
    }
    // Through the folder reader.
    let path = folder + "/" + SyncFile.fileName(of: fuzzed)
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0, (try? FileSystem.writeAll(fd, bytes)) != nil else { failure("cannot write the machine file") }
    close(fd)
    let snapshot = SyncFolderReader(folder: folder).scan()
    guard snapshot.files[goodMachine] == good else { failure("the well-formed file was not read whole") }
    guard FileSystem.list(folder).count == 2 else { failure("the reader created a file") }
    return 0
}

private let goodMachine = MachineID("00000000000000000000000000000001")!

/// A machine file that writes some of the keys the seeds use.
private let good: SyncFile = {
    var f = SyncFile(machine: goodMachine, machineName: "good")
    var app = SyncApplication()
    app.values["Color"] = SyncRecord(value: "red", time: SyncTimestamp(wall: 1_000, counter: 0, machine: goodMachine))
    app.values["Size"] = SyncRecord(value: nil, time: SyncTimestamp(wall: 2_000, counter: 1, machine: goodMachine))
    app.declarations["Color"] = SyncDeclaration(synced: true, time: SyncTimestamp(wall: 1_000, counter: 0, machine: goodMachine))
    f.applications["com.example.app"] = app
    return f
}()

/// A private folder holding the good file and, per input, the fuzzed one.
private let folder: String = {
    var template = Array("/tmp/prefs-fuzz-sync.XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { failure("mkdtemp") }
    let dir = String(cString: made)
    guard let bytes = try? good.encoded() else { failure("cannot encode the good file") }
    let fd = open(dir + "/" + SyncFile.fileName(of: goodMachine), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0, (try? FileSystem.writeAll(fd, bytes)) != nil else { failure("cannot write the good file") }
    close(fd)
    return dir
}()
