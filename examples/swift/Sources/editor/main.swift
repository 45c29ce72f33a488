import PrefsCore

/// The editor's window layout, stored as a dictionary (not JSON text).
struct Layout: Codable, Sendable, Equatable {
    var columns: Int
    var sidebar: Bool
}

enum Theme: String, Sendable { case light, dark }

// Each key is declared once, with its type and default; every reader of
// the process sees the default without a register call.
extension Preferences.Keys {
    static let fontSize = Preferences.Key<Int>("FontSize", default: 12)
    static let theme = Preferences.Key<Theme>("Theme", default: .light)
    static let recent = Preferences.Key<[String]>("Recent", default: [])
    static let layout = Preferences.Key<Layout>("Layout", default: Layout(columns: 1, sidebar: true))
}

let prefs = try Preferences(applicationID: "com.example.editor")

print("font size: \(prefs[.fontSize]) (set by the user: \(prefs.isSet(.fontSize)))")
prefs[.theme] = .dark
prefs[.recent] = ["notes.txt"] + prefs[.recent].prefix(4)
prefs[.layout] = Layout(columns: 2, sidebar: false)
print("theme: \(prefs[.theme]), recent: \(prefs[.recent]), layout: \(prefs[.layout])")

// The current value first, then every change, from this process or any other.
var seen: [Int] = []
for await size in prefs.updates(for: .fontSize) {
    seen.append(size)
    if seen.count == 1 { prefs[.fontSize] = size + 2 } else { break }
}
print("font size went \(seen.map(String.init).joined(separator: " -> "))")

prefs.reset(.fontSize)  // the default shows again
print("after reset: \(prefs[.fontSize])")
if !prefs.synchronize() { print("not saved yet; written within a second") }
