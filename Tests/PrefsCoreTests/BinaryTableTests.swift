import Testing

@testable import PrefsCore

/// Offset tables much longer than the objects they name: the reader keeps
/// its state per byte of the objects, not per entry of the table.
@Suite("Binary property lists: long offset tables")
struct BinaryTableTests {
    /// A file of `objects` (after the header) and a table of one-byte
    /// offsets, with one-byte references.
    static func file(_ objects: [UInt8], _ table: [UInt8], top: UInt64 = 0) -> [UInt8] {
        var b = Array("bplist00".utf8) + objects + table
        b += [0, 0, 0, 0, 0, 0, 1, 1]
        for v in [UInt64(table.count), top, UInt64(8 + objects.count)] {
            for shift in stride(from: 56, through: 0, by: -8) { b.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
        }
        return b
    }

    @Test("entries that share offsets decode to the values at those offsets")
    func shared() throws {
        // An array of 6 references; the table names 3 objects 13 times each.
        let objects: [UInt8] = [0xA6, 1, 2, 3, 4, 5, 6, 0x08, 0x09, 0x10, 0x05]
        let table: [UInt8] = [8] + Array(repeating: [15, 16, 17], count: 13).flatMap { $0 }
        let v = try PropertyList.parse(Self.file(objects, table))
        #expect(v == .array([.boolean(false), .boolean(true), .integer(5), .boolean(false), .boolean(true), .integer(5)]))
    }

    @Test("an object that contains itself through another entry of its offset is refused")
    func cycleThroughAlias() {
        // Entry 0 and entries 1...39 all name the array at 8, which refers to entry 1.
        let objects: [UInt8] = [0xA1, 1]
        let table = [UInt8](repeating: 8, count: 40)
        #expect(throws: PrefsError.self) { try PropertyList.parse(Self.file(objects, table)) }
    }

    @Test("an entry outside the objects is refused")
    func outside() {
        let objects: [UInt8] = [0xA2, 1, 2, 0x09]
        let table: [UInt8] = [8, 11, 200] + [UInt8](repeating: 11, count: 30)
        #expect(throws: PrefsError.self) { try PropertyList.parse(Self.file(objects, table)) }
    }
}
