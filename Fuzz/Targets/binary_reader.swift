@testable import PrefsCore

/// The binary property-list reader on arbitrary bytes: it returns a value
/// or an error, never crashes, hangs or leaks; what it returns keeps to
/// the limits, and the binary writer writes it back to bytes that read as
/// the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    switch Result(catching: { () throws(PrefsError) in try BinaryReader.read(bytes) }) {
    case .success(let v):
        if v.depth >= PropertyList.maxNesting { failure("a value nests \(v.depth) levels") }
        if v.minimumXMLSize > BinaryReader.maxExpandedSize(forFileSize: size) { failure("a value expands past the cap") }
        guard let again = try? BinaryWriter.write(v) else { failure("a value read cannot be written") }
        guard let back = try? PropertyList.parse(again) else { failure("the writer's output does not read") }
        if !sameValue(v, back) { failure("a value changed through the writer") }
    case .failure(let e):
        if e.message.isEmpty { failure("an error without a message") }
    }
    return 0
}

/// Equality that takes NaN as equal to itself (`==` on values does not),
/// comparing each pair of shared sub-values once: a value read through
/// shared objects would take exponential time to walk in full.
func sameValue(_ a: PropertyList, _ b: PropertyList) -> Bool {
    var seen = Set<[ObjectIdentifier]>()
    func same(_ a: PropertyList, _ b: PropertyList) -> Bool {
        if a === b { return true }
        guard seen.insert([ObjectIdentifier(a), ObjectIdentifier(b)]).inserted else { return true }
        switch (a.value, b.value) {
        case (.real(let x), .real(let y)): return x.bitPattern == y.bitPattern
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count && x.allSatisfy { k, v in y[k].map { same(v, $0) } ?? false }
        case (.array, _), (.dictionary, _): return false
        default: return a == b
        }
    }
    return same(a, b)
}
