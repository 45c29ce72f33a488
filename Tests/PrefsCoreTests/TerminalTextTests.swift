import Testing

@testable import PrefsCore

@Suite("Text for terminals")
struct TerminalTextTests {
    @Test("every C0 and C1 control, DEL and direction control is escaped; nothing else")
    func everyScalarOfTheRule() {
        let unsafe: [UInt32] =
            Array(0x00...0x1F) + Array(0x7F...0x9F) + [0x061C, 0x200E, 0x200F] + Array(0x202A...0x202E) + Array(0x2066...0x2069)
        for v in unsafe {
            let s = String(Unicode.Scalar(v)!)
            let e = TerminalText.escaped("a" + s + "b")
            #expect(e.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, "U+\(String(v, radix: 16)): \(e.debugDescription)")
            #expect(e.hasPrefix("a\\") && e.hasSuffix("b"), "\(e.debugDescription)")
        }
        #expect(TerminalText.escaped("\u{1B}[2J\r\u{9B}31m\u{202E}x") == "\\U001b[2J\\U000d\\U009b31m\\U202ex")
        #expect(TerminalText.escaped("a\nb\tc") == "a\\nb\\tc")
        for kept in ["plain", "é ü 日本", "back\\slash", "\u{A0}nbsp", "emoji 🎉", "\u{200D}zwj", ""] {
            #expect(TerminalText.escaped(kept) == kept)
        }
    }

    @Test("keeping the layout: newlines and tabs stay, every other control is escaped")
    func keepingLayout() {
        #expect(TerminalText.escaped("a\n\tb\r\u{1B}c\u{85}", keepingLayout: true) == "a\n\tb\\U000d\\U001bc\\U0085")
    }
}
