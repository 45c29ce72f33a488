import Foundation
import Testing

@testable import PrefsCore

// Settings schemas (a Settings.bundle's Root.plist and its child panes) as
// registered defaults.

@Suite("Settings schemas")
struct SettingsSchemaTests {
    @Test func settingsSchemaWithChildPanes() throws {
        try inSandbox { box in
            let dir = box.root + "/Settings.bundle"
            mkdirs(dir)
            func spec(_ items: [String: PropertyList]) -> PropertyList { .dictionary(items) }
            writePlist(
                .dictionary(
                    [
                        "PreferenceSpecifiers": .array([
                            spec(["Type": "PSGroupSpecifier", "Title": "General"]),
                            spec(["Type": "PSToggleSwitchSpecifier", "Key": "toggle", "DefaultValue": true]),
                            spec(["Type": "PSTextFieldSpecifier", "Key": "noDefault"]),
                            spec(["Type": "PSTitleValueSpecifier", "Key": "dup", "DefaultValue": "root"]),
                            spec(["Type": "PSChildPaneSpecifier", "Title": "More", "File": "Child"]),
                        ]), "StringsTable": "Root",
                    ] as [String: PropertyList]), to: dir + "/Root.plist")
            writePlist(
                .dictionary(
                    [
                        "PreferenceSpecifiers": .array([
                            spec(["Type": "PSMultiValueSpecifier", "Key": "childKey", "DefaultValue": 5]),
                            spec(["Type": "PSTitleValueSpecifier", "Key": "dup", "DefaultValue": "child"]),
                            // A cycle back to the root: each file is read once, so the
                            // root's "dup" does not come back over the child's.
                            spec(["Type": "PSChildPaneSpecifier", "File": "Root"]),
                            spec(["Type": "PSChildPaneSpecifier", "File": "Grand"]),
                        ])
                    ] as [String: PropertyList]), to: dir + "/Child.plist")
            writePlist(
                .dictionary(
                    [
                        "PreferenceSpecifiers": .array([
                            spec(["Type": "PSSliderSpecifier", "Key": "grand", "DefaultValue": 0.5]),
                            spec(["Type": "PSChildPaneSpecifier", "File": "Child"]),
                            spec(["Type": "PSChildPaneSpecifier", "File": "Grand"]),
                        ])
                    ] as [String: PropertyList]), to: dir + "/Grand.plist")

            let defaults = try SettingsSchema.defaults(fromFile: dir + "/Root.plist")
            #expect(defaults == plistDict(["toggle": true, "dup": "child", "childKey": 5, "grand": 0.5]))

            let store = box.store()
            let prefs = try Preferences(applicationID: storeApp, store: store)
            try prefs.registerDefaults(fromFile: dir + "/Root.plist")
            #expect(prefs.bool(forKey: "toggle") == true)
            #expect(prefs.integer(forKey: "childKey") == 5)
            #expect(prefs.double(forKey: "grand") == 0.5)
            #expect(prefs.object(forKey: "noDefault") == nil)
            // Registration is memory only.
            try store.synchronizeAll()
            #expect(box.allFiles().allSatisfy { $0.hasPrefix("Settings.bundle/") })

            // A plain dictionary file registers as it is.
            writePlist(["plain": 1], to: box.root + "/plain.plist")
            try prefs.registerDefaults(fromFile: box.root + "/plain.plist")
            #expect(prefs.integer(forKey: "plain") == 1)
        }
    }

    /// A schema whose child pane is missing or broken registers nothing.
    @Test func brokenSettingsSchemaRegistersNothing() throws {
        try inSandbox { box in
            let store = box.store()
            let prefs = try Preferences(applicationID: storeApp, store: store)
            writePlist(
                .dictionary(
                    [
                        "PreferenceSpecifiers": .array([
                            .dictionary(["Key": "first", "DefaultValue": 1] as [String: PropertyList]),
                            .dictionary(["Type": "PSChildPaneSpecifier", "File": "Missing"] as [String: PropertyList]),
                        ])
                    ] as [String: PropertyList]), to: box.root + "/Root.plist")
            #expect(throws: PrefsError.self) { try prefs.registerDefaults(fromFile: box.root + "/Root.plist") }
            #expect(prefs.object(forKey: "first") == nil)

            writeBytes(Array("<plist><dict><key>a</key></dict></plist>".utf8), to: box.root + "/Bad.plist")
            #expect(throws: PrefsError.self) { try prefs.registerDefaults(fromFile: box.root + "/Bad.plist") }
            #expect(throws: PrefsError.self) { try prefs.registerDefaults(fromFile: box.root + "/None.plist") }
            writePlist(["not", "a", "dict"], to: box.root + "/Array.plist")
            #expect(throws: PrefsError.self) { try prefs.registerDefaults(fromFile: box.root + "/Array.plist") }
        }
    }
}
