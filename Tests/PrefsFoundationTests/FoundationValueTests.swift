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
}
