/// The text forms of integers, reals and dates that property lists use,
/// parsed and printed without Foundation and without the C locale's help.
/// The parsers are `package`: the `prefs` command reads its `-int`,
/// `-float` and `-date` arguments with them, as a domain file's values are read.
package enum ScalarText {
    @inline(__always)
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    @inline(__always)
    static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    /// Trims XML whitespace from both ends.
    package static func trimmed(_ t: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lo = 0, hi = t.count
        while lo < hi && isSpace(t[lo]) { lo += 1 }
        while hi > lo && isSpace(t[hi - 1]) { hi -= 1 }
        return UnsafeBufferPointer(rebasing: t[lo..<hi])
    }

    /// Whether `t` starts with `-`, and where its digits start (after an
    /// optional `-` or `+`).
    static func sign(_ t: UnsafeBufferPointer<UInt8>) -> (negative: Bool, digitsStart: Int) {
        guard let first = t.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") else { return (false, 0) }
        return (first == UInt8(ascii: "-"), 1)
    }
}
