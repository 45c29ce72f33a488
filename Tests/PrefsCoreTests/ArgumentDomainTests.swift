import Foundation
import Testing

@testable import PrefsCore

// The argument domain: `-key value` pairs of the command line.

@Suite("Argument domain")
struct ArgumentDomainTests {
    @Test func argumentDomainParsing() throws {
        let args = [
            "/usr/bin/program",
            "-str", "hello",
            "-neg", "-5",  // a value starting with '-' makes no pair...
            "-arr", "(1, 2)",  // ...and "-5" is then a key whose value "-arr" starts with '-'
            "-dict", "{a = b;}",
            "-plain", "hello world",
            "-quoted", "\"a b\"",
            "-xml", "<plist version=\"1.0\"><integer>5</integer></plist>",
            "notakey", "value",
            "-", "dash",
            "-last",
        ]
        try inSandbox { box in
            let store = box.store(arguments: args)
            func v(_ k: String) throws -> PropertyList? { try store.value(forKey: k, application: storeApp) }
            #expect(try v("str") == .string("hello"))
            #expect(try v("neg") == nil)
            #expect(try v("5") == nil)
            #expect(try v("arr") == .array([.string("1"), .string("2")]))
            #expect(try v("dict") == .dictionary(["a": PropertyList.string("b")] as [String: PropertyList]))
            #expect(try v("plain") == .string("hello world"))
            #expect(try v("quoted") == .string("a b"))
            #expect(try v("xml") == .integer(5))
            #expect(try v("notakey") == nil)
            #expect(try v("last") == nil)
            #expect(
                store.volatileDomain("NSArgumentDomain")
                    == plistDict([
                        "str": "hello", "arr": [.string("1"), .string("2")],
                        "dict": .dictionary(["a": PropertyList.string("b")] as [String: PropertyList]),
                        "plain": "hello world", "quoted": "a b", "xml": 5,
                    ]))
            // Replacing the arguments replaces the whole domain.
            store.setArguments(["program", "-other", "1"])
            #expect(try v("str") == nil)
            #expect(try v("other") == .string("1"))
            // Arguments beat the storeApp's own domain but not managed values.
            try store.set([("other", "stored")], in: own())
            #expect(try v("other") == .string("1"))
            writePlist(["other": "managed"], to: box.managedPath(storeApp, userOnly: false))
            try store.synchronize(application: storeApp)
            #expect(try v("other") == .string("managed"))
            #expect(try store.isForced("other", application: storeApp))
        }
    }
}
