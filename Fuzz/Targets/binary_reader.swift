@testable import PrefsCore

/// The binary property-list reader on arbitrary bytes: it returns a value
/// or an error, never crashes, hangs or leaks; what it returns keeps to
/// the limits, and the binary writer writes it back to bytes that read as
/// the same value. A dictionary read is also spliced (``BinarySplice``,
/// as a commit splices a domain file): one key replaced, one removed, one
/// added; the splice refuses, or gives a file that reads as the
/// dictionary with those changes.
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
        if case .dictionary(let d) = v.value { checkSplice(Array(bytes), d) }
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

/// Splices changes into `file`, whose top dictionary reads as `d`, as a
/// commit does with the changes placed by the index's sorted keys.
func checkSplice(_ file: [UInt8], _ d: PropertyListDictionary) {
    let keys = d.keys.sorted()
    var changes: [PropertyList.Key: PropertyList?] = [PropertyList.Key("zz-added"): .integer(1)]
    if keys.count > 1 { changes[keys[0]] = .some(nil) }
    if let middle = keys.dropFirst().first { changes[middle] = .string("replaced") }
    var placed: [DomainIndex.Change] = []
    var expected = d
    for k in changes.keys.sorted() {
        var at = 0
        while at < keys.count && keys[at] < k { at += 1 }
        let replaces = at < keys.count && keys[at] == k
        let value = changes[k]!
        if !replaces && value == nil { continue }
        placed.append(DomainIndex.Change(at: at, replaces: replaces, key: k, value: value))
        expected[k] = value
    }
    guard let out = BinarySplice.splice(file, entries: keys.count, changes: placed) else { return }
    guard let read = try? PropertyList.parse(out) else { failure("a spliced file does not read") }
    if !sameValue(read, PropertyList(.dictionary(expected))) { failure("a spliced file reads other values") }
}
