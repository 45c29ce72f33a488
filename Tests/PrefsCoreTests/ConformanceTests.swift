import Glibc
import PrefsCore
import Testing

/// The shared conformance corpus, read in place (never copied): it lives at
/// <package root>/../shared/conformance, the package root being two
/// directories above this file's directory.
enum Conformance {
    static let directory: String = {
        var file = #filePath
        if !file.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: 4096)
            if getcwd(&buffer, buffer.count) != nil {
                file = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + file
            }
        }
        let testDirectory = parentDirectory(file)  // Tests/PrefsCoreTests
        let packageRoot = parentDirectory(parentDirectory(testDirectory))
        return normalizedPath(packageRoot + "/../shared/conformance")
    }()

    static let available: Bool = {
        let found = isDirectory(directory + "/valid") && isDirectory(directory + "/invalid")
        if !found { print("conformance corpus not found at \(directory): skipped") }
        return found
    }()

    /// The base names of the `.plist` files in `valid` or `invalid`.
    static func names(_ kind: String) -> [String] {
        (directoryEntries("\(directory)/\(kind)") ?? [])
            .filter { $0.hasSuffix(".plist") }
            .map { String($0.dropLast(".plist".count)) }
    }

    struct ExpectedValueError: Error, CustomStringConvertible {
        let description: String
    }

    /// The value a `valid/NAME.json` describes: one member naming the type.
    static func expectedValue(_ json: JSON) throws(ExpectedValueError) -> PropertyList {
        guard case .object(let members) = json, members.count == 1 else {
            throw ExpectedValueError(description: "expected an object with one member")
        }
        let type = members[0].name, content = members[0].value
        switch (type, content) {
        case ("string", .string(let s)):
            return .string(s)
        case ("integer", .string(let s)):
            guard let i = Int128(s), i >= PropertyList.minInteger, i <= PropertyList.maxInteger else {
                throw ExpectedValueError(description: "bad integer \(s)")
            }
            return PropertyList(.integer(i))
        case ("real", .string(let s)):
            switch s {
            case "nan": return .real(.nan)
            case "inf": return .real(.infinity)
            case "-inf": return .real(-.infinity)
            default:
                guard let d = Double(s) else { throw ExpectedValueError(description: "bad real \(s)") }
                return .real(d)
            }
        case ("bool", .bool(let b)):
            return .boolean(b)
        case ("date", .string(let s)):
            let u = Array(s.utf8)
            func number(_ from: Int, _ count: Int) -> Int? { Int(String(decoding: u[from..<(from + count)], as: UTF8.self)) }
            guard u.count == 20, let y = number(0, 4), let mo = number(5, 2), let d = number(8, 2),
                let h = number(11, 2), let mi = number(14, 2), let sec = number(17, 2)
            else {
                throw ExpectedValueError(description: "bad date \(s)")
            }
            // Proleptic Gregorian, as CoreFoundation reads XML dates.
            return .date(gregorianUnixTime(y, mo, d, h, mi, sec))
        case ("data", .string(let s)):
            guard let bytes = TestBase64.decode(s) else { throw ExpectedValueError(description: "bad base64") }
            return .data(bytes)
        case ("array", .array(let items)):
            var values: [PropertyList] = []
            for item in items { values.append(try expectedValue(item)) }
            return .array(values)
        case ("dict", .object(let entries)):
            var d: [PropertyList.Key: PropertyList] = [:]
            for member in entries {
                let k = PropertyList.Key(member.name)
                guard d[k] == nil else { throw ExpectedValueError(description: "duplicate key \(member.name.debugDescription)") }
                d[k] = try expectedValue(member.value)
            }
            // The corpus's values have no UID: its one-key CF$UID dictionary
            // is the UID CoreFoundation (and this library) reads it as.
            if d.count == 1, let i = d["CF$UID"]?.integerValue, let u = UInt32(exactly: i) { return .uid(u) }
            return .dictionary(d)
        default:
            throw ExpectedValueError(description: "unknown member \(type.debugDescription) or wrong content")
        }
    }
}

@Suite("Conformance corpus", .enabled(if: Conformance.available, "conformance corpus not found: skipped"))
struct ConformanceTests {
    @Test func validFilesReadAsTheirJSONSays() {
        let names = Conformance.names("valid")
        #expect(!names.isEmpty)
        var failed: [String] = []
        for name in names {
            let base = "\(Conformance.directory)/valid/\(name)"
            guard let plist = readFile(base + ".plist") else { failed.append(name); Issue.record("\(name): unreadable"); continue }
            guard let jsonBytes = readFile(base + ".json") else { failed.append(name); Issue.record("\(name): no .json"); continue }
            let expected: PropertyList
            do {
                expected = try Conformance.expectedValue(try JSON.parse(jsonBytes))
            } catch {
                failed.append(name)
                Issue.record("\(name).json: \(error)")
                continue
            }
            switch parseResult(plist) {
            case .failure(let e):
                failed.append(name)
                Issue.record("valid/\(name).plist refused: \(e.code) \(e.message)")
            case .success(let v):
                if let difference = strictDifference(expected, v) {
                    failed.append(name)
                    Issue.record("valid/\(name).plist read wrong: \(difference)")
                }
            }
        }
        print(
            "conformance: \(names.count - failed.count) of \(names.count) valid files read as expected"
                + (failed.isEmpty ? "" : "; failing: \(failed.joined(separator: ", "))"))
    }

    /// Files of `invalid` that this library reads, deliberately, as macOS
    /// does (doc/behaviour.md, "Deliberate differences"): a date's day or second
    /// past its end is counted on, as CoreFoundation and swift-foundation
    /// read it (`2024-01-32` is 1 February).
    static let readAsMacOSReadsThem: [String: PropertyList] = [
        "date-day-32": [PropertyList.date(gregorianUnixTime(2024, 2, 1, 20, 43, 14))],
        "date-leap-second": [PropertyList.date(gregorianUnixTime(2017, 1, 1))],
    ]

    @Test func invalidFilesMacOSReadsAreReadAsItDoes() {
        for (name, want) in Self.readAsMacOSReadsThem {
            guard let plist = readFile("\(Conformance.directory)/invalid/\(name).plist") else { continue }
            #expect((try? parseResult(plist).get()) == want, "invalid/\(name)")
        }
    }

    @Test func invalidFilesAreRefused() {
        let names = Conformance.names("invalid").filter { Self.readAsMacOSReadsThem[$0] == nil }
        #expect(!names.isEmpty)
        var failed: [String] = []
        for name in names {
            guard let plist = readFile("\(Conformance.directory)/invalid/\(name).plist") else {
                failed.append(name); Issue.record("\(name): unreadable"); continue
            }
            switch parseResult(plist) {
            case .success(let v):
                failed.append(name)
                Issue.record("invalid/\(name).plist accepted as \(v.kind): \(String(v.description.prefix(80)))")
            case .failure(let e):
                var problems: [String] = []
                if name.hasPrefix("nesting-") && e.code != .tooDeep { problems.append("code \(e.code), expected tooDeep") }
                if (name.contains("entity") || name.contains("billion-laughs")) && e.code != .forbiddenMarkup {
                    problems.append("code \(e.code), expected forbiddenMarkup")
                }
                if !e.message.contains("line") { problems.append("message names no line") }
                if !problems.isEmpty {
                    failed.append(name)
                    Issue.record("invalid/\(name).plist: \(problems.joined(separator: "; ")): \(e.message)")
                }
            }
        }
        print(
            "conformance: \(names.count - failed.count) of \(names.count) invalid files refused as expected"
                + (failed.isEmpty ? "" : "; failing: \(failed.joined(separator: ", "))"))
    }

    @Test func validValuesSurviveWriteThenRead() {
        let names = Conformance.names("valid")
        var failed: [String] = []
        for name in names {
            guard let plist = readFile("\(Conformance.directory)/valid/\(name).plist"),
                case .success(let value) = parseResult(plist)
            else { continue }  // reported by the test above
            do {
                let xml = try value.xmlData()
                switch parseResult(xml) {
                case .failure(let e):
                    failed.append(name)
                    Issue.record("valid/\(name): written XML refused: \(e.message)")
                case .success(let back):
                    if let difference = strictDifference(value, back) {
                        failed.append(name)
                        Issue.record("valid/\(name): changed by write then read: \(difference)")
                    }
                }
            } catch {
                failed.append(name)
                Issue.record("valid/\(name): not written: \(error.code) \(error.message)")
            }
        }
        print(
            "conformance: \(names.count - failed.count) of \(names.count) valid values survive write then read"
                + (failed.isEmpty ? "" : "; failing: \(failed.joined(separator: ", "))"))
    }
}

/// The JSON reader itself, so that a conformance pass means something.
@Suite("Test JSON reader")
struct JSONReaderTests {
    @Test func keepsKeysExact() throws {
        let j = try JSON.parse("{\"\u{E9}\": 1, \"e\u{301}\": 2, \"\\u00e9\": 3}")
        guard case .object(let members) = j else { Issue.record("not an object"); return }
        #expect(members.count == 3)
        #expect(members.map { Array($0.name.utf8) } == [[0xC3, 0xA9], [0x65, 0xCC, 0x81], [0xC3, 0xA9]])
    }

    @Test func escapesAndStructure() throws {
        let j = try JSON.parse(" {\"a\": [true, false, null, -1.5e3, \"x\\\"\\\\\\/\\b\\f\\n\\r\\t\\ud83d\\ude00\"], \"b\": {}} \n")
        let expected = JSON.object([
            JSONMember("a", .array([.bool(true), .bool(false), .null, .number("-1.5e3"), .string("x\"\\/\u{8}\u{C}\n\r\t\u{1F600}")])),
            JSONMember("b", .object([])),
        ])
        #expect(j == expected)
        #expect(throws: JSON.ParseError.self) { try JSON.parse("{\"a\": 1,}") }
        #expect(throws: JSON.ParseError.self) { try JSON.parse("[1] 2") }
        #expect(throws: JSON.ParseError.self) { try JSON.parse("\"\\ud800\"") }
        #expect(throws: JSON.ParseError.self) { try JSON.parse("\"unterminated") }
    }

    @Test func expectedValues() throws {
        let v = try Conformance.expectedValue(
            JSON.parse(
                """
                {"dict": {"i": {"integer": "18446744073709551615"}, "r": {"real": "-0.0"}, "n": {"real": "nan"},
                 "d": {"date": "0001-01-01T00:00:00Z"}, "b": {"data": "AAECAw=="}, "a": {"array": [{"bool": true}, {"string": ""}]}}}
                """))
        let expected: PropertyList = [
            "i": PropertyList.integer(UInt64.max), "r": PropertyList.real(-0.0), "n": PropertyList.real(.nan),
            "d": PropertyList.date(-62_135_596_800), "b": PropertyList.data([0, 1, 2, 3]), "a": [true, ""],
        ]
        #expect(strictDifference(expected, v) == nil)
        // The strict comparison tells -0.0 from 0.0 and integers from reals.
        #expect(strictDifference(.real(0.0), .real(-0.0)) != nil)
        #expect(strictDifference(.integer(1), .real(1)) != nil)
        #expect(strictDifference(.real(.nan), .real(.nan)) == nil)
    }
}
