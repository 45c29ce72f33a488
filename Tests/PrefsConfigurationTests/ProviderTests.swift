// Run with the package trait: swift test --traits Configuration
#if Configuration
    import Configuration
    import Foundation
    import PrefsConfiguration
    import PrefsCore
    import Testing

    /// A private store for one test, removed afterwards.
    private func withPrefs<T>(_ body: (Preferences) async throws -> T) async throws -> T {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/config", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = PreferencesStore(
            locations: Locations(
                userDirectory: root + "/config", systemDirectory: root + "/system", managedDirectory: root + "/managed",
                hostID: "testhost", userName: "tester", runtimeDirectory: nil),
            arguments: ["test"])
        return try await body(try Preferences(applicationID: "com.example.config", store: store))
    }

    @Suite("PrefsConfiguration")
    struct ProviderTests {
        @Test func typesAndDottedKeys() async throws {
            try await withPrefs { prefs in
                prefs.set(["timeout": 30, "host": "example.com", "retry": ["count": 3]] as PropertyList, forKey: "http")
                prefs.set("literal", forKey: "http.host")
                prefs.set(1.5, forKey: "ratio")
                prefs.set(true, forKey: "verbose")
                prefs.set("42", forKey: "fromText")
                prefs.set([1, 2, 3], forKey: "ports")
                prefs.set(["a", "b"], forKey: "names")
                prefs.set([UInt8]([1, 2]), forKey: "blob")
                prefs.set(PropertyList.date(0), forKey: "epoch")
                prefs.register(defaults: ["fallback": "registered"])
                let config = ConfigReader(provider: PreferencesProvider(preferences: prefs))
                #expect(config.int(forKey: "http.timeout") == 30)
                #expect(config.string(forKey: "http.host") == "literal", "a top-level dotted key takes precedence")
                #expect(config.int(forKey: "http.retry.count") == 3)
                #expect(config.double(forKey: "ratio") == 1.5)
                #expect(config.double(forKey: "http.timeout") == 30)
                #expect(config.bool(forKey: "verbose") == true)
                #expect(config.int(forKey: "fromText") == 42)
                #expect(config.intArray(forKey: "ports") == [1, 2, 3])
                #expect(config.stringArray(forKey: "names") == ["a", "b"])
                #expect(config.bytes(forKey: "blob") == [1, 2])
                #expect(config.string(forKey: "epoch") == "1970-01-01T00:00:00Z")
                #expect(config.double(forKey: "epoch") == 0)
                #expect(config.string(forKey: "fallback") == "registered", "the whole search list answers")
                #expect(config.int(forKey: "absent", default: 7) == 7)
                #expect(config.int(forKey: "names", default: 5) == 5, "a value of another type is not used")
                #expect(throws: (any Error).self) { try config.requiredInt(forKey: "names") }
            }
        }

        /// A real ConfigReader watching a value through the reloading provider
        /// sees a change made through libprefs, without polling.
        @Test func readerWatchesAChange() async throws {
            try await withPrefs { prefs in
                prefs.set(10, forKey: "limit")
                let config = ConfigReader(provider: ReloadingPreferencesProvider(preferences: prefs))
                let seen = try await config.watchInt(forKey: "limit") { updates in
                    var seen: [Int?] = []
                    for await v in updates {
                        seen.append(v)
                        if seen.count == 1 { prefs.set(11, forKey: "limit") }
                        if seen.count == 2 { prefs.removeObject(forKey: "limit") }
                        if seen.count == 3 { break }
                    }
                    return seen
                }
                #expect(seen == [10, 11, nil])
                let snapshots = try await config.watchSnapshot { updates in
                    var count = 0
                    for await s in updates {
                        count += 1
                        if count == 1 {
                            #expect(s.string(forKey: "mode") == nil)
                            prefs.set("fast", forKey: "mode")
                        } else {
                            #expect(s.string(forKey: "mode") == "fast")
                            break
                        }
                    }
                    return count
                }
                #expect(snapshots == 2)
            }
        }
    }
#endif
