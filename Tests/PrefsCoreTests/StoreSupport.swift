import Foundation
import Testing

@testable import PrefsCore

// Helpers for the tests of the store: private directories, stores placed in
// them, raw file access, and child processes of this test binary.

/// The host id and user name every test store uses, so that file names are
/// known in advance and nothing depends on the machine.
let testHostID = "testhost"
let testUserName = "tester"

/// The application the store's tests read and write.
let storeApp = "com.example.app"

/// `application`'s own domain: the current user's, on any host, where a
/// program's writes go.
func own(_ application: String = storeApp) -> DomainID {
    DomainID(application: application, user: .current, host: .any)
}

/// Fresh, private directories for one test: the current user's config
/// directory, the any-user directory and the managed directory, under one
/// temporary root. Use through ``inSandbox(configSubpath:createConfig:_:)``,
/// which removes it at the end.
final class StoreSandbox: @unchecked Sendable {
    let root: String
    let config: String
    let system: String
    let managed: String
    /// The user's runtime directory, where the user's change counter lives.
    let runtime: String
    private var stores: [PreferencesStore] = []

    /// `configSubpath` places the config directory deeper under the root
    /// (missing directories are the library's to create).
    init(configSubpath: String = "config", createConfig: Bool = true, base: String = "/tmp") {
        var template = Array("\(base)/prefs-store-test.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        root = String(cString: made!)
        config = root + "/" + configSubpath
        system = root + "/system"
        managed = root + "/managed"
        runtime = root + "/runtime"
        if createConfig { mkdirs(config) }
        mkdirs(runtime)
        mkdirs(system)
        mkdirs(managed)
    }

    /// A store over these directories, as a separate process would have it.
    func store(arguments: [String] = ["test-program"]) -> PreferencesStore {
        let s = PreferencesStore(locations: locations, arguments: arguments)
        stores.append(s)
        return s
    }

    var locations: Locations {
        Locations(
            userDirectory: config, systemDirectory: system, managedDirectory: managed,
            hostID: testHostID, userName: testUserName, runtimeDirectory: runtime, indexDirectory: indexDirectory)
    }

    /// Where the stores keep their domain indexes (a cache, not listed by
    /// ``allFiles()``).
    var indexDirectory: String { root + "/cache/prefs" }

    /// The file the contract names for a domain, spelled out here rather
    /// than asked of the library.
    func expectedPath(_ app: String, user: DomainUser = .current, host: DomainHost = .any) -> String {
        let base = user == .current ? config : system
        let name = app == globalDomainName ? ".GlobalPreferences" : app
        return host == .any ? "\(base)/\(name).plist" : "\(base)/ByHost/\(name).\(testHostID).plist"
    }

    func managedPath(_ app: String, userOnly: Bool) -> String {
        userOnly ? "\(managed)/\(testUserName)/\(app).plist" : "\(managed)/\(app).plist"
    }

    /// Every regular file under the root, relative to it, sorted; not the
    /// domain indexes, nor the stores' change counters (`runtime/prefs-changes`, made when a store
    /// starts, and `.prefs-changes` in a directory written to), which belong
    /// to no domain.
    func allFiles() -> [String] {
        var out: [String] = []
        func walk(_ dir: String, _ rel: String) {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
                let full = dir + "/" + name
                let r = rel.isEmpty ? name : rel + "/" + name
                var st = stat()
                guard lstat(full, &st) == 0 else { continue }
                if (st.st_mode & S_IFMT) == S_IFDIR {
                    if r != "cache" { walk(full, r) }
                } else if name != ChangeCounter.fileName && name != ChangeCounter.runtimeFileName {
                    out.append(r)
                }
            }
        }
        walk(root, "")
        return out.sorted()
    }

    /// Writes what the stores made by ``store(arguments:)`` have pending,
    /// and lets them go.
    func forgetStores() {
        for s in stores { try? s.synchronizeAll() }
        stores = []
    }

    /// Writes what is pending first, so that no background or exit-time
    /// flush re-creates the directories after they are gone; then removes
    /// everything.
    func remove() {
        _ = chmod(config, 0o700)
        for s in stores { try? s.synchronizeAll() }
        try? FileManager.default.removeItem(atPath: root)
    }
}

/// A store over the directories of the sandbox whose root is `root` (made
/// with the default config subpath), as a test's child process makes it
/// from the root it is given.
func storeInSandbox(root: String) -> PreferencesStore {
    PreferencesStore(
        locations: Locations(
            userDirectory: root + "/config", systemDirectory: root + "/system", managedDirectory: root + "/managed",
            hostID: testHostID, userName: testUserName, runtimeDirectory: root + "/runtime",
            indexDirectory: root + "/cache/prefs"),
        arguments: ["test-program"])
}

/// The change a crash test's child writes to the 1,000-key domain of
/// ``crashTestModel()``, and which a crash point kills it in the middle of.
let crashTestChange: [(String, PropertyList?)] = [("key500", "changed"), ("added", 1)]

/// The 1,000-key domain the crash tests write before their child's change:
/// integers and strings, alternating.
func crashTestModel() -> PropertyListDictionary {
    var model = PropertyListDictionary()
    for i in 0..<1000 { model[PropertyList.Key("key\(i)")] = i % 2 == 0 ? .integer(Int64(i)) : .string("value \(i)") }
    return model
}

/// A crash test's child: over the sandbox whose root the environment
/// variable `rootVariable` names, writes ``crashTestChange`` to `id` and
/// synchronizes, and is killed on the way (`PREFS_TEST_FAIL`); an alarm
/// ends it should it hang instead.
func writeCrashTestChange(rootVariable: String, _ id: DomainID) throws {
    alarm(60)
    let store = storeInSandbox(root: ProcessInfo.processInfo.environment[rootVariable]!)
    try store.set(crashTestChange, in: id)
    try store.synchronize(application: id.application)
}

/// What the domain holds after a crash test's child was killed at
/// `point`: `model` before the rename, with the child's change after it.
func crashTestResult(_ model: PropertyListDictionary, killedAt point: String) -> PropertyListDictionary {
    guard point != "before-rename" else { return model }
    var after = model
    for (key, value) in crashTestChange { after[PropertyList.Key(key)] = value }
    return after
}

/// Runs `body` with fresh directories under `base`, removed afterwards.
func inSandbox<T>(
    configSubpath: String = "config", createConfig: Bool = true, base: String = "/tmp",
    _ body: (StoreSandbox) throws -> T
) rethrows -> T {
    let box = StoreSandbox(configSubpath: configSubpath, createConfig: createConfig, base: base)
    defer { box.remove() }
    return try body(box)
}

func mkdirs(_ path: String) {
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
}

/// Writes `value` as an XML property list at `path`, creating directories.
func writePlist(_ value: PropertyList, to path: String) {
    mkdirs(FileSystem.parent(of: path))
    let bytes = try! value.xmlData()
    writeBytes(bytes, to: path)
}

func writeBytes(_ bytes: [UInt8], to path: String) {
    let ok = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    precondition(ok, "cannot write \(path)")
}

/// The bytes of the file at `path`, or nil when there is none.
func readBytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { Array($0) }
}

/// The dictionary stored in the file at `path`, or nil.
func readPlist(_ path: String) -> PropertyListDictionary? {
    guard let b = readBytes(path) else { return nil }
    return (try? PropertyList.parse(b))?.dictionaryValue
}

func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

/// The permission bits of `path` (not following a final symlink when
/// `follow` is false), or nil when it does not exist.
func permissions(_ path: String, follow: Bool = true) -> mode_t? {
    var st = stat()
    let r = follow ? stat(path, &st) : lstat(path, &st)
    return r == 0 ? st.st_mode & 0o7777 : nil
}

func isSymlink(_ path: String) -> Bool {
    var st = stat()
    return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
}

/// A dictionary from Swift string keys.
func plistDict(_ items: [String: PropertyList]) -> PropertyListDictionary {
    var d = PropertyListDictionary()
    for (k, v) in items { d[PropertyList.Key(k)] = v }
    return d
}

/// A readable rendering of an optional value, for messages.
func render(_ v: PropertyList?) -> String { v.map { $0.description } ?? "nil" }

let runningAsRoot = getuid() == 0

/// Whether this process runs under AddressSanitizer (its runtime is
/// loaded). There, freed memory is held in quarantine, so resident size
/// says nothing about leaks: LeakSanitizer judges them instead.
let runningUnderAddressSanitizer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil

/// Expects `body` to throw a `PrefsError` with `code`; returns it.
@discardableResult
func expectPrefsError(
    _ code: PrefsError.Code, _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> PrefsError? {
    do {
        try body()
        Issue.record("expected \(code) \(what), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as PrefsError {
        #expect(error.code == code, "\(what): \(error.message)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected \(code) \(what), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

// MARK: Child processes of this test binary

/// The environment variable that makes a child-role test run; a test that is
/// only a child role is disabled when it is not set to its role.
let childRoleVariable = "PREFS_STORE_TEST_CHILD"

func isChildRole(_ role: String) -> Bool {
    ProcessInfo.processInfo.environment[childRoleVariable] == role
}

/// Runs one test of this binary in a new process, with `role` and
/// `environment` added to this process's environment. Needed where the
/// environment must be in place before the process starts (Foundation and
/// the store read it once). Returns the exit status and everything printed.
func runChildTest(named test: String, role: String, environment: [String: String]) -> (status: Int32, output: String) {
    let exe = (try? FileSystem.resolvingLinks("/proc/self/exe")) ?? "/proc/self/exe"
    let p = Process()
    p.executableURL = URL(fileURLWithPath: exe)
    p.arguments = ["--testing-library", "swift-testing", "--filter", test]
    var env = ProcessInfo.processInfo.environment
    env[childRoleVariable] = role
    for (k, v) in environment { env[k] = v }
    p.environment = env
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    do {
        try p.run()
    } catch {
        return (-1, "cannot start \(exe): \(error)")
    }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Waits up to `seconds` for `condition`.
func eventually(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    var waited = 0.0
    while waited < seconds {
        if condition() { return true }
        usleep(20_000)
        waited += 0.02
    }
    return condition()
}
