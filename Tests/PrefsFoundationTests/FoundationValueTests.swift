import Foundation
import PrefsFoundation
import Testing

/// A private store for one test, removed afterwards.
private func withPrefs(_ body: (Preferences, String) throws -> Void) throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-foundation-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: root + "/config", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    let store = PreferencesStore(
        locations: Locations(
            userDirectory: root + "/config", systemDirectory: root + "/system", managedDirectory: root + "/managed",
            hostID: "testhost", userName: "tester", runtimeDirectory: nil),
        arguments: ["test"])
    try body(try Preferences(applicationID: "com.example.foundation", store: store), root)
}

struct Bookmark: Codable, Equatable {
    var added: Date
    var thumbnail: Data
    var link: URL
}

@Suite("PrefsFoundation")
struct FoundationValueTests {
    @Test func dateDataAndURL() throws {
        try withPrefs { prefs, _ in
            let when = Date(timeIntervalSince1970: 1_700_000_000)
            prefs.set(when, forKey: "When")
            #expect(prefs.object(forKey: "When") == .date(1_700_000_000))
            #expect(prefs.dateValue(forKey: "When") == when)
            prefs.set(Data([1, 2, 3]), forKey: "Bytes")
            #expect(prefs.data(forKey: "Bytes") == Data([1, 2, 3]))

            let home = FileManager.default.homeDirectoryForCurrentUser.path
            prefs.set(URL(fileURLWithPath: home + "/notes.txt"), forKey: "File")
            #expect(prefs.object(forKey: "File") == .string("~/notes.txt"), "as UserDefaults stores a file URL")
            #expect(prefs.url(forKey: "File") == URL(fileURLWithPath: home + "/notes.txt"))
            prefs.set(URL(fileURLWithPath: "/tmp/x"), forKey: "Tmp")
            #expect(prefs.string(forKey: "Tmp") == "/tmp/x")
            prefs.set(URL(string: "https://example.com/a?b=1")!, forKey: "Web")
            #expect(prefs.url(forKey: "Web") == URL(string: "https://example.com/a?b=1"))
            prefs.set("/etc/hosts", forKey: "Path")
            #expect(prefs.url(forKey: "Path") == URL(fileURLWithPath: "/etc/hosts"), "a path string reads as a file URL")
            #expect(prefs.url(forKey: "Bytes") == nil, "data is no URL, and no crash")
            prefs.set(nil as URL?, forKey: "Web")
            #expect(prefs.object(forKey: "Web") == nil)
        }
    }

    @Test func codableWithFoundationTypes() throws {
        try withPrefs { prefs, _ in
            let b = Bookmark(added: Date(timeIntervalSince1970: 1000), thumbnail: Data([9]), link: URL(string: "https://e.com")!)
            prefs.set(b, forKey: "Bookmark")
            #expect(
                prefs.object(forKey: "Bookmark")
                    == ["added": PropertyList.date(1000), "thumbnail": PropertyList.data([9]), "link": "https://e.com"])
            #expect(prefs.value(Bookmark.self, forKey: "Bookmark") == b)
            let any = prefs.foundationDictionaryRepresentation()["Bookmark"] as? [String: Any]
            #expect(any?["added"] as? Date == Date(timeIntervalSince1970: 1000))
        }
    }

    @Test func typedKeysOfFoundationTypes() throws {
        try withPrefs { prefs, _ in
            let key = Preferences.Key<Date?>("LastOpened", default: nil)
            #expect(prefs[key] == nil)
            prefs[key] = Date(timeIntervalSince1970: 5)
            #expect(prefs[key] == Date(timeIntervalSince1970: 5))
        }
    }

    @Test func foundationObjectsInAndDateAndDataOut() throws {
        try withPrefs { prefs, _ in
            prefs.set(NSNumber(value: true), forKey: "B")
            prefs.set(NSNumber(value: UInt64.max), forKey: "U")
            prefs.set(NSNumber(value: 1.5), forKey: "R")
            prefs.set(NSNumber(value: Int8(1)), forKey: "I8")
            #expect(prefs.propertyList(forKey: "B") == .boolean(true))
            #expect(prefs.propertyList(forKey: "U") == .integer(UInt64.max))
            #expect(prefs.object(forKey: "U") as? UInt64 == UInt64.max, "beyond Int.max comes out as UInt64")
            #expect(prefs.propertyList(forKey: "R") == .real(1.5))
            #expect(prefs.propertyList(forKey: "I8") == .integer(1), "an Int8 NSNumber is no boolean")
            let nested: NSDictionary = ["a": NSArray(array: [NSString(string: "x"), NSData(bytes: [7], length: 1)])]
            prefs.set(nested, forKey: "N")
            #expect(prefs.propertyList(forKey: "N") == ["a": ["x", PropertyList.data([7])]])
            let out = try #require(prefs.dictionary(forKey: "N")?["a"] as? [Any])
            #expect(out.last as? Data == Data([7]))
            prefs.set(Date(timeIntervalSince1970: 10), forKey: "D")
            #expect(prefs.object(forKey: "D") as? Date == Date(timeIntervalSince1970: 10))
            #expect(prefs.dictionaryRepresentation()["D"] as? Date == Date(timeIntervalSince1970: 10))
        }
    }

    @Test func nestingDeeperThanReadersAcceptIsRefused() throws {
        try withPrefs { prefs, _ in
            var deep: Any = 1
            for _ in 0..<300 { deep = [deep] }
            var refused: PrefsError?
            do { try prefs.trySet(deep, forKey: "Deep") } catch let e as PrefsError { refused = e } catch {}
            #expect(refused?.code == .tooDeep)
            prefs.set(deep, forKey: "Deep")
            #expect(prefs.object(forKey: "Deep") == nil, "nothing stored, no crash")
            var fine: Any = 1
            for _ in 0..<200 { fine = [fine] }
            prefs.set(fine, forKey: "Deep")
            #expect(prefs.object(forKey: "Deep") != nil, "deep values that readers accept are stored")
        }
    }

    @Test func domainsGiveBackTheObjectsGivenWhileUnchanged() throws {
        try withPrefs { prefs, _ in
            // A Date with a sub-microsecond part that seconds since 1970
            // in a Double cannot hold.
            let when = Date(timeIntervalSinceReferenceDate: 786_000_000.123_456_789)
            #expect(Date(timeIntervalSince1970: when.timeIntervalSince1970) != when, "the premise of this test")
            prefs.setVolatileDomain(["When": when, "N": 1], forName: "Memo")
            #expect(prefs.volatileDomain(forName: "Memo")["When"] as? Date == when)
            prefs.setPersistentDomain(["When": when], forName: "com.example.memo")
            #expect(prefs.persistentDomain(forName: "com.example.memo")?["When"] as? Date == when)
            // Changed since: converted afresh.
            let other = try Preferences(applicationID: "com.example.memo", store: prefs.store)
            other.set(Date(timeIntervalSince1970: 5), forKey: "When")
            #expect(prefs.persistentDomain(forName: "com.example.memo")?["When"] as? Date == Date(timeIntervalSince1970: 5))
        }
    }
}
