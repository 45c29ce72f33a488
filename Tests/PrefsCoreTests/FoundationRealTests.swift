import Foundation
import Testing

@testable import PrefsCore

// Reals as Apple writes them in XML: CoreFoundation's "%.*g" with
// DBL_DIG + 2 = 17 digits, "0.0" for zero, nan and the signed infinities.
// Negative zero is written "-0.0" where Apple writes "0.0", so that its sign
// survives a write and a read.
// Compared with Foundation's PropertyListSerialization on this machine and
// with the C library's %.17g.

/// The text between `<real>` and `</real>` in `xml`.
private func realText(_ xml: [UInt8]) -> String? {
    let text = String(decoding: xml, as: UTF8.self)
    guard let open = text.range(of: "<real>"), let close = text.range(of: "</real>") else { return nil }
    return String(text[open.upperBound..<close.lowerBound])
}

/// C's %.17g of `d`.
private func cFormat(_ d: Double) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    _ = withVaList([d]) { vsnprintf(&buffer, buffer.count, "%.17g", $0) }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

@Suite("Reals as Apple writes them")
struct FoundationRealTests {
    static let examples: [(Double, String)] = [
        (0.1, "0.10000000000000001"), (32.3, "32.299999999999997"), (Double(Float(32.3)), "32.299999237060547"),
        (1, "1"), (100, "100"), (1e100, "1e+100"), (.leastNonzeroMagnitude, "4.9406564584124654e-324"), (0, "0.0"), (-0.0, "-0.0"),
        (1e16, "10000000000000000"), (1e17, "1e+17"), (3e-5, "3.0000000000000001e-05"), (0.0001, "0.0001"),
        (1.0 / 3, "0.33333333333333331"), (-1.5, "-1.5"), (.nan, "nan"), (.infinity, "+infinity"),
        (-.infinity, "-infinity"), (1.7976931348623157e308, "1.7976931348623157e+308"), (1e-7, "9.9999999999999995e-08"),
    ]

    @Test func examplesByteForByte() throws {
        for (d, want) in Self.examples {
            #expect(realText(try PropertyList.real(d).xmlData()) == want, "\(d)")
        }
    }

    @Test func agreesWithPropertyListSerialization() throws {
        var rng = SplitMix64(seed: 0x0.1p0.bitPattern)
        var values = Self.examples.map(\.0)
        for _ in 0..<3000 { values.append(Double(bitPattern: rng.next())) }
        for _ in 0..<1000 { values.append(Double(Int64(bitPattern: rng.next()) % 1_000_000) / 1000) }
        for d in values where !(d == 0 && d.sign == .minus) {
            let theirs = realText(Array(try PropertyListSerialization.data(fromPropertyList: d, format: .xml, options: 0)))
            #expect(realText(try PropertyList.real(d).xmlData()) == theirs, "\(d)")
        }
    }

    @Test func agreesWithTheCLibrary() {
        var rng = SplitMix64(seed: 17)
        var failures = 0
        for i in 0..<100_000 {
            // Every exponent, and the subnormals.
            let d = i % 10 == 0 ? Double(bitPattern: rng.next() & 0x000F_FFFF_FFFF_FFFF) : Double(bitPattern: rng.next())
            guard d.isFinite, d != 0 else { continue }
            if ScalarText.formatAppleReal(d) != cFormat(d) {
                failures += 1
                if failures < 5 { Issue.record("\(d): \(ScalarText.formatAppleReal(d)) != \(cFormat(d))") }
            }
        }
        #expect(failures == 0)
    }

    @Test func seventeenDigitsReadBack() throws {
        var rng = SplitMix64(seed: 99)
        for _ in 0..<2000 {
            let d = Double(bitPattern: rng.next())
            guard d.isFinite, d != 0 else { continue }
            let back = try PropertyList.parse(try PropertyList.real(d).xmlData())
            #expect(back.realValue == d)
        }
    }
}
