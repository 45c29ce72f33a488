import Foundation
import Testing

@testable import PrefsCore

// How a stored value of another type reads as an integer or a boolean.

@Suite("Typed coercions")
struct CoercionTests {
    @Test func integerCoercions() throws {
        try inSandbox { box in
            let store = box.store()
            let prefs = try Preferences(applicationID: storeApp, store: store)
            let cases: [(String, PropertyList, Int64?)] = [
                ("int", .integer(42), 42),
                ("int 2^40", .integer(Int64(1) << 40), Int64(1) << 40),
                ("int -2^40", .integer(-(Int64(1) << 40)), -(Int64(1) << 40)),
                ("int max", .integer(Int64.max), Int64.max),
                ("int min", .integer(Int64.min), Int64.min),
                ("uint 2^63", .integer(UInt64(1) << 63), nil),
                ("uint max", .integer(UInt64.max), nil),
                ("true", .boolean(true), 1),
                ("false", .boolean(false), 0),
                ("real 3.9", .real(3.9), 3),
                ("real -3.9", .real(-3.9), -3),
                ("real -0.5", .real(-0.5), 0),
                ("real 2^40", .real(1_099_511_627_776.0), 1 << 40),
                ("real -2^63", .real(-9_223_372_036_854_775_808.0), Int64.min),
                ("real 2^63", .real(9_223_372_036_854_775_808.0), nil),
                ("real 1e300", .real(1e300), nil),
                ("real -1e300", .real(-1e300), nil),
                ("real inf", .real(.infinity), nil),
                ("real nan", .real(.nan), nil),
                ("string -12 spaced", .string("  -12 "), -12),
                ("string +7", .string("+7"), 7),
                ("string 2^40", .string("1099511627776"), 1 << 40),
                ("string int max", .string("9223372036854775807"), Int64.max),
                ("string int min", .string("-9223372036854775808"), Int64.min),
                ("string 2^63", .string("9223372036854775808"), nil),
                ("string huge", .string("123456789012345678901234567890"), nil),
                ("string 12abc", .string("12abc"), nil),
                ("string 1.5", .string("1.5"), nil),
                ("string 0x10", .string("0x10"), nil),
                ("string 1 2", .string("1 2"), nil),
                ("string sign only", .string("-"), nil),
                ("string empty", .string(""), nil),
                ("string spaces", .string("   "), nil),
                ("string YES", .string("YES"), nil),
                ("date", .date(0), nil),
                ("data", .data([1]), nil),
                ("array", .array([.integer(1)]), nil),
                ("dictionary", .dictionary(["a": PropertyList.integer(1)] as [String: PropertyList]), nil),
            ]
            try store.set(cases.map { ($0.0, $0.1) }, in: own())
            for (key, value, expected) in cases {
                #expect(Coercion.integer(value) == expected, "\(key): \(render(value))")
            }
            #expect(prefs.integer(forKey: "absent") == 0)
        }
    }

    @Test func booleanCoercions() throws {
        try inSandbox { box in
            let store = box.store()
            let prefs = try Preferences(applicationID: storeApp, store: store)
            let cases: [(String, PropertyList, Bool?)] = [
                ("true", .boolean(true), true),
                ("false", .boolean(false), false),
                ("int 0", .integer(0), false),
                ("int 17", .integer(17), true),
                ("int -1", .integer(-1), true),
                // Not truncated to 32 bits: 2^32 and 2^40 are non-zero.
                ("int 2^32", .integer(Int64(1) << 32), true),
                ("int 2^40", .integer(Int64(1) << 40), true),
                ("uint max", .integer(UInt64.max), true),
                ("YES", .string("YES"), true),
                ("yes", .string("yes"), true),
                ("yEs", .string("yEs"), true),
                ("no", .string("no"), false),
                ("NO", .string("NO"), false),
                ("TRUE", .string("TRUE"), true),
                ("true string", .string("true"), true),
                ("False", .string("False"), false),
                ("string 0", .string("0"), false),
                ("string 17", .string("17"), true),
                ("string -3", .string("-3"), true),
                ("string 2^32", .string("4294967296"), true),
                ("string y", .string("y"), nil),
                ("string on", .string("on"), nil),
                ("string yess", .string("yess"), nil),
                ("string 1.0", .string("1.0"), nil),
                ("string empty", .string(""), nil),
                // Reals are not valid booleans.
                ("real 1.0", .real(1.0), nil),
                ("real 0.0", .real(0.0), nil),
                ("real 0.5", .real(0.5), nil),
                ("date", .date(1), nil),
                ("data", .data([1]), nil),
                ("array", .array([]), nil),
            ]
            try store.set(cases.map { ($0.0, $0.1) }, in: own())
            for (key, value, expected) in cases {
                #expect(Coercion.boolean(value) == expected, "\(key): \(render(value))")
            }
            #expect(prefs.bool(forKey: "absent") == false)
        }
    }
}
