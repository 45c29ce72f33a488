import PrefsCore

// Each line after an `expect:` comment is a mistake; the comment holds
// what the compiler must say about it (Tests/compile-fail/run.sh).

extension Preferences.Keys {
    static let fontSize = Preferences.Key<Int>("FontSize", default: 12)
}

let prefs = try Preferences(applicationID: "com.example.wrongtype")
// expect: 'subscript(_:)' is unavailable: a key's value has the key's type
prefs[.fontSize] = "big"
// expect: 'subscript(_:)' is unavailable: a key's value has the key's type
Preferences[.fontSize] = "big"
// expect: 'set(_:for:)' is unavailable: a key's value has the key's type
try prefs.set("big", for: .fontSize)
// expect: 'subscript(_:)' is unavailable: a key's value has the key's type
let name: String = prefs[.fontSize]
