import Glibc
import Testing
@testable import PrefsCore

// Values built to crash or exhaust the library once they are in: numbers
// that overflow a conversion, values too large for any document, keys and
// text the reader would refuse.

private let app = "com.example.hostile"

@Suite("Hostile values")
struct HostileValueTests {
    /// 39 and 40 decimal digits at and beyond 2^127 overflowed the typed
    /// getters' accumulator (a trap, so a crash of the C program).
    static let hugeDecimals: [String] = [
        "170141183460469231731687303715884105727",   // 2^127 - 1
        "170141183460469231731687303715884105728",   // 2^127
        "999999999999999999999999999999999999999",   // 39 nines
        "9999999999999999999999999999999999999999",  // 40 nines
        "-9999999999999999999999999999999999999999",
        "+340282366920938463463374607431768211456",  // 2^128
        String(repeating: "9", count: 1_000),
        "18446744073709551616",                      // 2^64
        "-9223372036854775809",                      // -2^63 - 1
    ]

    @Test func hugeDecimalStringsAreInvalidNotFatal() {
        for text in Self.hugeDecimals {
            #expect(Coercion.integer(.string(text)) == nil, "\(text)")
            #expect(Coercion.boolean(.string(text)) == nil, "\(text)")
        }
        // The edges of what a property list holds stay valid.
        #expect(Coercion.boolean(.string("18446744073709551615")) == true)
        #expect(Coercion.boolean(.string(" -9223372036854775808\t")) == true)
        #expect(Coercion.integer(.string("-9223372036854775808")) == Int64.min)
        #expect(Coercion.integer(.string(String(repeating: "0", count: 100) + "42")) == 42)
        #expect(Coercion.boolean(.string(String(repeating: "0", count: 100))) == false)
    }

    /// The same through the argument domain, as `./app -Size 999...9` does.
    @Test func hugeDecimalArguments() throws {
        // (A value starting with `-` makes no pair.)
        for text in Self.hugeDecimals where !text.hasPrefix("-") {
            let domain = ArgumentDomain.parse(["app", "-Size", text])
            let value = try #require(domain["Size"])
            #expect(Coercion.integer(value) == nil)
            #expect(Coercion.boolean(value) == nil)
        }
        try inSandbox { box in
            let store = box.store(arguments: ["app", "-Size", Self.hugeDecimals[3], "-Flag", Self.hugeDecimals[1]])
            let prefs = try Preferences(applicationID: app, store: store)
            #expect(prefs.integer(forKey: "Size") == nil)
            #expect(prefs.bool(forKey: "Flag") == nil)
        }
    }

    /// Every integer a property list holds is printed in full, and so is
    /// every Int128 the printer is given.
    @Test func integerPrintingCoversTheWholeRange() {
        for v: Int128 in [.max, .min, Int128(UInt64.max), Int128(Int64.min), 0, -1] {
            var out = [UInt8]()
            ScalarText.appendInteger(v, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(v))
        }
    }
}
