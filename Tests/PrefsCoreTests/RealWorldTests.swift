import Foundation
import Testing

@testable import PrefsCore

/// The real-world corpus (files written by macOS, Xcode, iTerm2, GNUstep and
/// others, with the values an independent reader gives), read in place,
/// never copied: <package root>/../shared/realworld, as ``Conformance``.
enum RealWorld {
    static let directory: String = normalizedPath(Conformance.directory + "/../realworld")

    static let available: Bool = {
        let found = isDirectory(directory + "/files") && isDirectory(directory + "/expected")
        if !found { print("real-world corpus not found at \(directory): skipped") }
        return found
    }()

    /// The files that have an expected value (`expected/<file>.json`).
    static func names() -> [String] {
        (directoryEntries(directory + "/expected") ?? [])
            .filter { $0.hasSuffix(".json") && $0 != "SETTINGS.json" }
            .map { String($0.dropLast(".json".count)) }
            .sorted()
    }

    static func member(_ json: JSON, _ name: String) -> JSON? {
        guard case .object(let members) = json else { return nil }
        return members.first { $0.name == name }?.value
    }

    static func string(_ json: JSON?) -> String? {
        if case .string(let s)? = json { return s }
        return nil
    }

    /// The value an expected file describes: `{"t": type, "v": value}`.
    static func value(_ json: JSON) throws(Conformance.ExpectedValueError) -> PropertyList {
        func bad(_ what: String) -> Conformance.ExpectedValueError { .init(description: what) }
        guard let type = string(member(json, "t")), let v = member(json, "v") else { throw bad("no t or v") }
        switch (type, v) {
        case ("string", .string(let s)): return .string(s)
        case ("int", .number(let n)):
            guard let i = Int128(n), i >= PropertyList.minInteger, i <= PropertyList.maxInteger else { throw bad("int \(n)") }
            return PropertyList(.integer(i))
        case ("real", .string(let s)):
            switch s {
            case "nan": return .real(.nan)
            case "inf": return .real(.infinity)
            case "-inf": return .real(-.infinity)
            default:
                guard let d = Double(s) else { throw bad("real \(s)") }
                return .real(d)
            }
        case ("bool", .bool(let b)): return .boolean(b)
        case ("date", _):
            guard case .number(let n)? = member(json, "unix"), let t = Double(n) else { throw bad("date without unix") }
            return .date(t)
        case ("data", .string(let s)):
            guard let bytes = Data(base64Encoded: s) else { throw bad("data \(s.prefix(20))") }
            return .data(Array(bytes))
        case ("uid", .number(let n)):
            guard let u = UInt32(n) else { throw bad("uid \(n)") }
            return .uid(u)
        case ("array", .array(let items)):
            var out: [PropertyList] = []
            for item in items { out.append(try value(item)) }
            return .array(out)
        case ("dict", .object(let members)):
            var out = PropertyListDictionary()
            for m in members { out[PropertyList.Key(m.name)] = try value(m.value) }
            return .dictionary(out)
        default: throw bad("type \(type)")
        }
    }

    /// Where `found` differs from `expected`, or nil. The reference reader
    /// keeps dates to the microsecond (Python's datetime): a date matches
    /// within one microsecond; everything else exactly.
    static func difference(_ found: PropertyList, _ expected: PropertyList, path: String = "") -> String? {
        if case .date(let x) = found.value, case .date(let y) = expected.value {
            return abs(x - y) <= 1e-6 ? nil : "\(path.isEmpty ? "root" : path): date \(x) != \(y)"
        }
        switch (found.value, expected.value) {
        case (.array(let x), .array(let y)) where x.count == y.count:
            for i in x.indices {
                if let d = difference(x[i], y[i], path: "\(path)[\(i)]") { return d }
            }
            return nil
        case (.dictionary(let x), .dictionary(let y)) where Set(x.keys) == Set(y.keys):
            for key in x.keys.sorted() {
                if let d = difference(x[key]!, y[key]!, path: "\(path).\(key.string)") { return d }
            }
            return nil
        default:
            return strictDifference(found, expected, path: path)
        }
    }

    struct Case {
        let name: String
        let bytes: [UInt8]
        let json: JSON
    }

    static func load(_ name: String) throws -> Case {
        let json = try JSON.parse(try #require(readFile("\(directory)/expected/\(name).json")))
        return Case(name: name, bytes: try #require(readFile("\(directory)/files/\(name)")), json: json)
    }

    /// Files read differently from the reference, on purpose (doc/behaviour.md,
    /// "Deliberate differences"), with the reason.
    static let deliberateDifferences: [String: String] = [
        "gnustep_apps-projectcenter__Resources_Info-gnustep.plist":
            "GNUstep-only OpenStep text (c++ unquoted): refused, as Apple's grammar refuses it"
    ]

    /// The real `Library/Preferences` domain files (binary and XML).
    static func preferenceFiles() -> [String] {
        names().filter { $0.contains("__Library_Preferences_") && $0.hasSuffix(".plist") }
    }
}

@Suite struct RealWorldTests {
    /// Every file reads as the reference reader reads it; the files that
    /// reader refuses are refused.
    @Test func everyFileReadsAsExpected() throws {
        guard RealWorld.available else { return }
        var checked = 0
        var failures: [String] = []
        for name in RealWorld.names() where RealWorld.deliberateDifferences[name] == nil {
            let c = try RealWorld.load(name)
            let parsed = Result { () throws(PrefsError) in try PropertyList.parse(c.bytes) }
            if let reason = RealWorld.string(RealWorld.member(c.json, "error")) {
                if case .success = parsed { failures.append("\(name): reads, where the reference refuses it (\(reason))") }
                checked += 1
                continue
            }
            guard let expectedJSON = RealWorld.member(c.json, "value") else { continue }
            let expected = try RealWorld.value(expectedJSON)
            switch parsed {
            case .failure(let e): failures.append("\(name): \(e.message)")
            case .success(let v):
                if let d = RealWorld.difference(v, expected) { failures.append("\(name): \(d)") }
            }
            checked += 1
        }
        #expect(failures.isEmpty, "\(failures.count) of \(checked) files differ:\n\(failures.joined(separator: "\n"))")
        #expect(checked >= 400)
        // The deliberate differences are refused, with a clear error.
        for name in RealWorld.deliberateDifferences.keys {
            #expect(throws: PrefsError.self) { try PropertyList.parse(try RealWorld.load(name).bytes) }
        }
    }

    /// Each real preference file, placed as a domain: one other key set and
    /// synchronized, three times over, leaves every value it held exactly
    /// as it was, and the file in its format (binary stays binary).
    @Test func preferenceFilesKeepEveryValueThroughWrites() throws {
        guard RealWorld.available else { return }
        let names = RealWorld.preferenceFiles()
        #expect(names.count >= 100)
        var failures: [String] = []
        var binaries = 0
        for name in names {
            let c = try RealWorld.load(name)
            guard let original = try? PropertyList.parse(c.bytes), original.dictionaryValue != nil else { continue }
            let wasBinary = c.bytes.starts(with: Array("bplist00".utf8))
            if wasBinary { binaries += 1 }
            try inSandbox { box in
                let app = "com.example.realworld"
                let path = box.expectedPath(app)
                #expect(writeFile(path, c.bytes))
                let id = DomainID(application: app, user: .current, host: .any)
                var want = original.dictionaryValue!
                for round in 1...3 {
                    let store = box.store()
                    let key = "libprefs.test.key\(round)"
                    try store.set([(key, .integer(round))], in: id)
                    _ = try store.synchronize(id)
                    want[PropertyList.Key(key)] = .integer(round)
                    let written = try #require(readFile(path))
                    // Binary stays binary; XML stays XML unless it holds
                    // what only binary carries (a Terminal profile's ESC).
                    let isBinary = written.starts(with: Array("bplist00".utf8))
                    let xmlCarries = try XMLWriter.carries(original)
                    if isBinary != wasBinary && (wasBinary || xmlCarries) {
                        failures.append("\(name): round \(round) changed the file's format")
                    }
                    let reread = try PropertyList.parse(written)
                    if let d = strictDifference(reread, .dictionary(want)) {
                        failures.append("\(name): round \(round): \(d)")
                        break
                    }
                    // A new process reads the same (through the index, too).
                    let fresh = try #require(try box.store().value(forKey: key, application: app))
                    #expect(fresh == .integer(round))
                }
            }
        }
        #expect(binaries >= 100)
        #expect(failures.isEmpty, "\(failures.count) domains changed:\n\(failures.joined(separator: "\n"))")
    }

    /// Keyed archives (UIDs) come back from binary and from XML as they were.
    @Test func keyedArchivesRoundTrip() throws {
        guard RealWorld.available else { return }
        var archives = 0
        for name in RealWorld.names() {
            let c = try RealWorld.load(name)
            guard RealWorld.member(c.json, "value") != nil, bytesContain(c.bytes, Array("$archiver".utf8)) || containsUID(c.json)
            else { continue }
            let v = try PropertyList.parse(c.bytes)
            guard hasUID(v) else { continue }
            archives += 1
            #expect(strictDifference(try PropertyList.parse(try v.binaryData()), v) == nil, "\(name) through binary")
            #expect(strictDifference(try PropertyList.parse(try v.xmlData()), v) == nil, "\(name) through XML")
        }
        #expect(archives >= 2)
    }

    private func containsUID(_ json: JSON) -> Bool {
        switch json {
        case .object(let members):
            if RealWorld.string(RealWorld.member(json, "t")) == "uid" { return true }
            return members.contains { containsUID($0.value) }
        case .array(let items): return items.contains(where: containsUID)
        default: return false
        }
    }

    private func hasUID(_ v: PropertyList) -> Bool {
        switch v.value {
        case .uid: return true
        case .array(let items): return items.contains(where: hasUID)
        case .dictionary(let d): return d.values.contains(where: hasUID)
        default: return false
        }
    }
}
