internal import CLibXML2
import Glibc

/// Reads XML property lists with libxml2's SAX2 parser, building values as
/// elements close (no DOM). Strict: see ``XMLPropertyList/read(_:)``.
enum XMLReader {
    static func read(_ bytes: UnsafeRawBufferPointer) throws(PrefsError) -> PropertyList {
        // libxml2 refuses every raw control character that ``Lenient``
        // substitutes, so a document parsed as it is holds none: it is
        // looked for only once a parse has failed, and a document that needs
        // the stand-ins is read from them, as if substituted from the start.
        let plain = Result { () throws(PrefsError) in try read(bytes, controlsSubstituted: false).root }
        guard case .failure = plain, let lenient = Lenient.substituted(bytes) else { return try plain.get() }
        let result = lenient.withUnsafeBytes { b in
            Result { () throws(PrefsError) in try read(b, controlsSubstituted: true).root }
        }
        return try result.get()
    }

    /// The entries of `keys` in the dictionary that `bytes` holds, and how
    /// many entries the document lists (duplicates included), with every
    /// other value checked as ``read(_:)`` checks it but not built; `nil`
    /// when the document does not hold a dictionary or ``read(_:)`` would
    /// not return one as it is (it fails, or it needs the stand-ins of
    /// ``Lenient``): the caller then reads it whole, which says why.
    ///
    /// Whatever this returns, ``read(_:)`` of the same bytes returns a
    /// dictionary holding the same values for `keys`: the checks are the
    /// same ones, made in the same places; only building is left out.
    static func readEntries(
        _ bytes: UnsafeRawBufferPointer, only keys: [String]
    ) -> (
        values: PropertyListDictionary, count: Int
    )? {
        // Every key of the root is compared with each wanted one.
        guard keys.count <= maxWantedKeys,
            let (root, count) = try? read(bytes, controlsSubstituted: false, only: keys),
            let entries = root.dictionaryValue
        else { return nil }
        return (entries, count)
    }

    /// Apple's writers put C0 control characters into XML text raw (a
    /// Terminal profile's ESC), and its parser reads them back; XML 1.0,
    /// and so libxml2, refuses them. A UTF-8 document holding such bytes is
    /// parsed with each one (0x01-0x08, 0x0B, 0x0C, 0x0E-0x1F) standing in
    /// as a character of plane 16's private use area, U+10FF81-U+10FF9F,
    /// turned back into the control character in strings and keys. A
    /// document that already holds one of those stand-ins, or that names
    /// another encoding, is parsed as it is (and refused as before).
    enum Lenient {
        /// The first three UTF-8 bytes of every stand-in; the fourth is
        /// 0x80 + the control character.
        static let prefix: (UInt8, UInt8, UInt8) = (0xF4, 0x8F, 0xBE)

        static func isControl(_ c: UInt8) -> Bool {
            c != 0 && c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D
        }

        /// The document with stand-ins, or `nil` when it needs none or
        /// cannot take them.
        static func substituted(_ b: UnsafeRawBufferPointer) -> [UInt8]? {
            guard b.contains(where: isControl) else { return nil }
            // UTF-8 only: no BOM of UTF-16 or UTF-32, no NUL bytes, no
            // other encoding declared.
            guard !b.contains(0), !PropertyList.hasUTF16ByteOrderMark(b) else { return nil }
            let head = Array(b.prefix(200)).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            if let at = firstRange(of: Array("encoding".utf8), in: head) {
                let rest = head[(at + 8)...].drop { $0 == 0x20 || $0 == UInt8(ascii: "=") || $0 == 0x22 || $0 == 0x27 }
                guard rest.starts(with: Array("utf-8".utf8)) || rest.starts(with: Array("utf8".utf8)) else { return nil }
            }
            var i = 0
            while i + 2 < b.count {
                if b[i] == prefix.0 && b[i + 1] == prefix.1 && b[i + 2] == prefix.2 { return nil }
                i += 1
            }
            var out = [UInt8]()
            out.reserveCapacity(b.count + 64)
            for c in b {
                if isControl(c) {
                    out += [prefix.0, prefix.1, prefix.2, 0x80 + c]
                } else {
                    out.append(c)
                }
            }
            return out
        }

        static func firstRange(of needle: [UInt8], in hay: [UInt8]) -> Int? {
            guard hay.count >= needle.count else { return nil }
            for i in 0...(hay.count - needle.count) where hay[i..<(i + needle.count)].elementsEqual(needle) { return i }
            return nil
        }

        /// `text` with every stand-in turned back into its control character.
        static func restored(_ text: [UInt8]) -> [UInt8] {
            var out = [UInt8]()
            out.reserveCapacity(text.count)
            var i = 0
            while i < text.count {
                if i + 3 < text.count, text[i] == prefix.0, text[i + 1] == prefix.1, text[i + 2] == prefix.2,
                    text[i + 3] >= 0x80, text[i + 3] < 0xA0
                {
                    out.append(text[i + 3] - 0x80)
                    i += 4
                } else {
                    out.append(text[i])
                    i += 1
                }
            }
            return out
        }
    }

    private static func read(
        _ bytes: UnsafeRawBufferPointer, controlsSubstituted: Bool, only wanted: [String]? = nil
    ) throws(PrefsError) -> (root: PropertyList, count: Int) {
        let xml = try LibXML2.functions
        guard bytes.count > 0 else {
            throw PrefsError(.malformed, "empty input at line 1: no property list")
        }
        guard bytes.count <= Int(Int32.max) else {
            throw PrefsError(.malformed, "input of \(bytes.count) bytes is larger than the XML reader takes (2 GiB)")
        }
        // A UTF-8 document is parsed in one call; any other encoding is
        // pushed in chunks, which lets `push` count a start tag's
        // attributes in libxml2's decoded buffer before libxml2 parses it.
        let whole = isUTF8(bytes)
        if whole {
            let p = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let limit = Int32(maxAttributes)
            if prefs_xml_may_crowd(p, bytes.count, limit) != 0, case let at = prefs_xml_crowded_tag(p, bytes.count, limit), at >= 0 {
                let line = 1 + UnsafeRawBufferPointer(rebasing: bytes[..<Int(at)]).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                throw PrefsError(.malformed, "an element carries more than \(maxAttributes) attributes at line \(line)")
            }
        }
        let previousErrorHandler = prefs_xml_silence(xml.errors)
        defer { prefs_xml_restore(xml.errors, previousErrorHandler) }
        let ctxt: xmlParserCtxtPtr
        if whole {
            guard let c = xml.createMemoryParserCtxt(bytes.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(bytes.count)),
                let sax = c.pointee.sax
            else { throw PrefsError(.internal, "libxml2 could not create a parser") }
            // The context's own handler block, of this size, freed with it.
            sax.pointee = handler
            ctxt = c
        } else {
            // No bytes yet: libxml2 reports what it finds in them (an encoding
            // it cannot read, say) through the handlers, which need the state
            // set below. Everything is pushed in chunks by `push`.
            var sax = handler
            guard let c = xml.createPushParserCtxt(&sax, nil, nil, 0, nil) else {
                throw PrefsError(.internal, "libxml2 could not create a parser")
            }
            ctxt = c
        }
        defer {
            // libxml2 builds a document of its own for entity declarations
            // even in SAX mode, and the context does not free it.
            if let doc = ctxt.pointee.myDoc {
                xml.freeDoc(doc)
                ctxt.pointee.myDoc = nil
            }
            xml.freeParserCtxt(ctxt)
        }

        let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        state.initialize(to: State(ctxt: ctxt, xml: xml, controlsSubstituted: controlsSubstituted))
        if let wanted {
            // A root dictionary of one CF$UID key is a UID: that key's value is always built.
            state.pointee.wanted = WantedKeys([uidKey.string] + wanted)
        }
        defer {
            state.pointee.wanted?.free()
            state.pointee.text.free()
            state.pointee.frames.deallocate()
            state.pointee.elementCache.deallocate()
            state.deinitialize(count: 1)
            state.deallocate()
        }
        ctxt.pointee._private = UnsafeMutableRawPointer(state)
        // No network, no DTD loading, no entity substitution, no huge input.
        _ = xml.ctxtUseOptions(ctxt, Int32(XML_PARSE_NONET.rawValue))
        if whole {
            _ = xml.parseDocument(ctxt)
        } else {
            push(bytes, to: ctxt, state, xml)
        }

        if let error = state.pointee.error { throw error }
        guard ctxt.pointee.wellFormed != 0 else {
            throw PrefsError(.malformed, "malformed XML at line \(xml.getLineNumber(ctxt))")
        }
        guard let root = state.pointee.root else {
            throw PrefsError(.malformed, "no property-list value in the document")
        }
        return (root, state.pointee.rootCount)
    }

    /// Whether libxml2 reads `b` as UTF-8: no byte-order mark or first
    /// bytes of UTF-16, UCS-4 or EBCDIC, and an XML declaration, if any,
    /// that names UTF-8 or no encoding. Anything else (other encodings, a
    /// declaration this does not recognise) is read the other way.
    static func isUTF8(_ b: UnsafeRawBufferPointer) -> Bool {
        guard b.count >= 4 else { return false }
        if b[0] == 0 || b[1] == 0 || b[2] == 0 || b[3] == 0 { return false }
        if (b[0] == 0xFE && b[1] == 0xFF) || (b[0] == 0xFF && b[1] == 0xFE) { return false }
        if b[0] == 0x4C && b[1] == 0x6F && b[2] == 0xA7 && b[3] == 0x94 { return false }
        var i = b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF ? 3 : 0
        let declaration: [UInt8] = Array("<?xml".utf8)
        guard b.count - i >= 5, UnsafeRawBufferPointer(rebasing: b[i..<(i + 5)]).elementsEqual(declaration) else { return true }
        // Its pseudo-attributes, up to `?>`, within the first 256 bytes.
        let limit = min(b.count, i + 256)
        var end = -1
        var j = i + 5
        while j + 1 < limit {
            if b[j] == UInt8(ascii: "?") && b[j + 1] == UInt8(ascii: ">") { end = j; break }
            j += 1
        }
        guard end > 0 else { return false }
        let head = Array(UnsafeRawBufferPointer(rebasing: b[i..<end]))
        guard let at = Lenient.firstRange(of: Array("encoding".utf8), in: head) else { return true }
        i = at + 8
        while i < head.count && (ScalarText.isSpace(head[i]) || head[i] == UInt8(ascii: "=")) { i += 1 }
        guard i < head.count, head[i] == 0x22 || head[i] == 0x27 else { return false }
        let quote = head[i]
        i += 1
        var name: [UInt8] = []
        while i < head.count && head[i] != quote && name.count < 8 {
            name.append(head[i] >= 0x41 && head[i] <= 0x5A ? head[i] | 0x20 : head[i])
            i += 1
        }
        guard i < head.count, head[i] == quote else { return false }
        return name == Array("utf-8".utf8) || name == Array("utf8".utf8)
    }

    /// The most keys ``readEntries(_:only:)`` builds alone; for more, the
    /// document is read whole.
    static let maxWantedKeys = 16

    /// The one key of the dictionary that stands for a UID in XML.
    static let uidKey: PropertyList.Key = "CF$UID"

    /// How many bytes libxml2 is given at a time.
    static let chunkSize = 64 * 1024

    /// Hands `bytes` to the parser chunk by chunk, then ends the document.
    ///
    /// libxml2 (before 2.11) checks the attributes of a start tag for
    /// duplicates pairwise, so a tag with n attributes costs n^2 / 2
    /// comparisons: 100,000 attributes take seconds. The push parser only
    /// parses a start tag once its `>` has arrived; while it waits, the
    /// attributes of the tag received so far are counted here, so a tag
    /// carrying more than ``maxAttributes`` is refused before libxml2 ever
    /// parses it, whatever its length and encoding (libxml2's buffer holds
    /// UTF-8). A tag that arrives whole within one chunk holds at most
    /// about `chunkSize / 5` attributes, a bounded cost, and is refused
    /// when its element starts.
    private static func push(_ bytes: UnsafeRawBufferPointer, to ctxt: xmlParserCtxtPtr, _ state: UnsafeMutablePointer<State>, _ xml: LibXML2) {
        var offset = 0
        var tag = PendingTag()
        while offset < bytes.count && state.pointee.error == nil && ctxt.pointee.instate != XML_PARSER_EOF {
            let n = min(chunkSize, bytes.count - offset)
            _ = xml.parseChunk(ctxt, bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self), Int32(n), 0)
            offset += n
            if ctxt.pointee.instate == XML_PARSER_START_TAG, state.pointee.error == nil,
                tag.count(in: ctxt) > maxAttributes
            {
                state.pointee.fail(.malformed, "an element carries more than \(maxAttributes) attributes")
            }
        }
        if state.pointee.error == nil && ctxt.pointee.instate != XML_PARSER_EOF {
            _ = xml.parseChunk(ctxt, nil, 0, 1)
        }
    }

    /// The most attributes (namespace declarations included) one element
    /// may carry. A property list needs one: `<plist version="1.0">`.
    static let maxAttributes = 8

    /// The most distinct attribute names, namespace prefixes and URIs and
    /// processing-instruction targets one document may use. libxml2
    /// (2.9) keeps every name in a table that stops growing at a few
    /// thousand buckets, so each new name costs a walk along chains that
    /// lengthen with the names before it: a few megabytes of distinct
    /// names took a minute. A property list uses one (`version`).
    static let maxNames = 4096

    /// The attributes of the start tag the push parser is waiting on,
    /// counted incrementally over its buffered (UTF-8) input: each `=`
    /// outside a quoted value is one attribute.
    struct PendingTag {
        /// Where the tag starts, as an offset in the whole decoded input.
        var start = -1
        /// How many bytes of it have been counted.
        var scanned = 0
        var quote: UInt8 = 0
        var attributes = 0

        mutating func count(in ctxt: xmlParserCtxtPtr) -> Int {
            guard let input = ctxt.pointee.input, let cur = input.pointee.cur, let end = input.pointee.end,
                let base = input.pointee.base
            else { return 0 }
            let here = Int(input.pointee.consumed) + (cur - base)
            if here != start { self = PendingTag(start: here) }
            let available = end - cur
            while scanned < available {
                let c = cur[scanned]
                scanned += 1
                if quote != 0 {
                    if c == quote { quote = 0 }
                } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                    quote = c
                } else if c == UInt8(ascii: "=") {
                    attributes += 1
                    if attributes > XMLReader.maxAttributes { break }
                }
            }
            return attributes
        }
    }

    /// The element names a property list may hold.
    enum Element: UInt8 {
        case plist, dict, array, key, string, integer, real, date, data, `true`, `false`

        init?(_ name: UnsafePointer<UInt8>) {
            let n = strlen(name)
            func eq(_ s: StaticString) -> Bool { s.utf8CodeUnitCount == n && memcmp(name, s.utf8Start, n) == 0 }
            switch name[0] {
            case UInt8(ascii: "k") where eq("key"): self = .key
            case UInt8(ascii: "s") where eq("string"): self = .string
            case UInt8(ascii: "i") where eq("integer"): self = .integer
            case UInt8(ascii: "r") where eq("real"): self = .real
            case UInt8(ascii: "t") where eq("true"): self = .true
            case UInt8(ascii: "f") where eq("false"): self = .false
            case UInt8(ascii: "a") where eq("array"): self = .array
            case UInt8(ascii: "p") where eq("plist"): self = .plist
            case UInt8(ascii: "d"):
                if eq("dict") { self = .dict } else if eq("data") { self = .data } else if eq("date") { self = .date } else { return nil }
            default: return nil
            }
        }

        var holdsText: Bool { self != .plist && self != .dict && self != .array }
    }

    /// An open array or dictionary: where its items start on the value
    /// (and key) stacks, how many keys and values it has listed (skipped
    /// ones too, which are not on the stacks), and the depth and size its
    /// ``PropertyList`` will record, summed as items arrive so that no
    /// second pass is needed.
    struct Frame {
        var isDict: Bool
        var valueStart: Int
        var keyStart: Int
        var keyCount = 0
        var valueCount = 0
        var depth = 0
        var size = 8
    }

    /// The keys a partial read builds the values of: their UTF-8 one after
    /// another in one allocation, compared by length and bytes (a read
    /// wants a few keys, and every key of the root is compared).
    struct WantedKeys {
        let bytes: UnsafeMutablePointer<UInt8>
        /// Where each key ends in `bytes`; the first starts at 0.
        let ends: UnsafeMutablePointer<Int>
        let count: Int

        init(_ keys: [String]) {
            let total = keys.reduce(0) { $0 + $1.utf8.count }
            bytes = .allocate(capacity: max(total, 1))
            ends = .allocate(capacity: keys.count)
            count = keys.count
            var at = 0
            for (i, k) in keys.enumerated() {
                for c in k.utf8 {
                    bytes[at] = c
                    at += 1
                }
                ends[i] = at
            }
        }

        @inline(__always)
        func contains(_ t: UnsafeBufferPointer<UInt8>) -> Bool {
            var start = 0
            for i in 0..<count {
                let end = ends[i]
                if end - start == t.count && (t.count == 0 || memcmp(bytes + start, t.baseAddress!, t.count) == 0) { return true }
                start = end
            }
            return false
        }

        func free() {
            bytes.deallocate()
            ends.deallocate()
        }
    }

    /// The text of the element being read, in a buffer reused for every
    /// element (reset, never freed, until the parse ends).
    struct TextBuffer {
        var base: UnsafeMutablePointer<UInt8>? = nil
        var count = 0
        var capacity = 0

        var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

        mutating func append(_ p: UnsafePointer<UInt8>, _ n: Int) {
            guard n > 0 else { return }
            if count + n > capacity {
                let grown = max(capacity * 2, count + n, 256)
                guard let q = realloc(base, grown) else { fatalError("out of memory") }
                base = q.assumingMemoryBound(to: UInt8.self)
                capacity = grown
            }
            (base! + count).update(from: p, count: n)
            count += n
        }

        func free() { Glibc.free(base) }
    }

    struct State {
        let ctxt: xmlParserCtxtPtr
        let xml: LibXML2
        /// Whether the document's control characters stand in as
        /// ``Lenient`` characters, to be restored in strings and keys.
        var controlsSubstituted = false
        /// The open containers, innermost last: `depth` of them, in a
        /// stack allocated once at the deepest size allowed.
        let frames = UnsafeMutablePointer<Frame>.allocate(capacity: PropertyList.maxNesting + 1)
        /// Element names already recognised, by the address libxml2 keeps
        /// each name at (one per name, for the whole parse): 16 slots of
        /// (address, element raw value + 1), looked up by address bits.
        let elementCache: UnsafeMutablePointer<UInt> = {
            let p = UnsafeMutablePointer<UInt>.allocate(capacity: 32)
            p.initialize(repeating: 0, count: 32)
            return p
        }()
        var depth = 0
        /// Whether the innermost open element holds text.
        var inText = false
        /// The items of every open container, outermost first; a
        /// container's items are moved out when it closes.
        var values: [PropertyList] = []
        /// The keys of every open dictionary, likewise. A dictionary whose
        /// key count exceeds its value count is waiting for a value.
        var keys: [PropertyList.Key] = []
        /// Open elements, innermost last.
        var open: [Element] = []
        var text = TextBuffer()
        var inPlist = false
        var plistValue: PropertyList? = nil
        var root: PropertyList? = nil
        var error: PrefsError? = nil
        /// When set, of the root dictionary's values only those of these
        /// keys are built (see ``XMLReader/readEntries(_:only:)``).
        var wanted: WantedKeys? = nil
        /// Whether the element being read lies in a value of the root
        /// dictionary that is not wanted: checked, not built. Such values
        /// and their keys are counted in their frames, not put on the
        /// stacks; `skipped` stands in for each value as it ends.
        var skipping = false
        let skipped = PropertyList(.boolean(false))
        /// How many entries the root dictionary listed, when the root is one.
        var rootCount = 0
        /// The distinct attribute and namespace names and URIs and
        /// processing-instruction targets seen so far, by the address
        /// libxml2 keeps each one at (its name table gives one address per
        /// name); see ``maxNames``.
        /// The first of them is kept apart (a property list uses one name,
        /// `version`), so that most documents never build the set.
        var firstName: UnsafeRawPointer? = nil
        var names: Set<UnsafeRawPointer>? = nil

        /// Counts `name` (an address in libxml2's name table); refuses
        /// the document past ``XMLReader/maxNames`` distinct names.
        mutating func count(_ name: UnsafePointer<UInt8>?) {
            guard let name else { return }
            let p = UnsafeRawPointer(name)
            if p == firstName { return }
            if firstName == nil {
                firstName = p
                return
            }
            if names == nil { names = [] }
            guard names!.insert(p).inserted, names!.count + 1 > XMLReader.maxNames else { return }
            fail(.malformed, "more than \(XMLReader.maxNames) distinct attribute, namespace and processing-instruction names")
        }

        var line: Int32 { xml.getLineNumber(ctxt) }

        mutating func fail(_ code: PrefsError.Code, _ message: String) {
            if error == nil { error = PrefsError(code, "\(message) at line \(line)") }
            xml.stopParser(ctxt)
        }

        /// The element `name` (an address in libxml2's name table) names,
        /// through `elementCache`; `nil` for a name a property list does
        /// not use. Static, so that no copy of the state is made to call it.
        @inline(__always)
        static func element(_ name: UnsafePointer<UInt8>, _ elementCache: UnsafeMutablePointer<UInt>) -> Element? {
            let address = UInt(bitPattern: name)
            let slot = elementCache + 2 * Int((address >> 3) & 15)
            if slot[0] == address { return Element(rawValue: UInt8(truncatingIfNeeded: slot[1] &- 1)) }
            guard let e = Element(name) else { return nil }
            slot[0] = address
            slot[1] = UInt(e.rawValue) + 1
            return e
        }

        /// Drops the keys and values of the container that `frame` was.
        mutating func removeItems(of frame: Frame) {
            while keys.count > frame.keyStart { keys.removeLast() }
            while values.count > frame.valueStart { values.removeLast() }
        }

        /// Whether the innermost open dictionary has a key without a value.
        func keyPending(_ f: Frame) -> Bool {
            f.keyCount > f.valueCount
        }

        /// Whether a value may start here; reports why not.
        mutating func valueMayStart(_ name: Element) -> Bool {
            if depth > 0 {
                let top = frames[depth - 1]
                if top.isDict && !keyPending(top) {
                    fail(.malformed, "<\(name)> in a <dict> without a <key> before it")
                    return false
                }
                return true
            }
            if inPlist {
                if plistValue != nil { fail(.malformed, "more than one value in <plist>"); return false }
                return true
            }
            return open.isEmpty  // a value as the root element, without <plist>
        }

        mutating func start(_ name: Element) {
            if let current = open.last, current.holdsText {
                fail(.malformed, "<\(name)> inside <\(current)>: value elements hold text only")
                return
            }
            // Levels below <plist>: each container and each value or key element counts.
            if depth + 1 > PropertyList.maxNesting && name != .plist {
                fail(.tooDeep, "nesting deeper than \(PropertyList.maxNesting) levels")
                return
            }
            switch name {
            case .plist:
                guard open.isEmpty else { fail(.malformed, "<plist> inside another element"); return }
                inPlist = true
            case .key:
                guard depth > 0, case let top = frames[depth - 1], top.isDict else { fail(.malformed, "<key> outside a <dict>"); return }
                guard !keyPending(top) else { fail(.malformed, "<key> follows a <key> that has no value"); return }
                text.count = 0
            case .dict, .array:
                guard valueMayStart(name) else { return }
                (frames + depth).initialize(to: Frame(isDict: name == .dict, valueStart: values.count, keyStart: keys.count))
                depth += 1
            default:
                guard valueMayStart(name) else { return }
                text.count = 0
            }
            open.append(name)
            inText = name.holdsText
        }

        mutating func end() {
            guard let name = open.popLast() else { return }
            inText = false
            switch name {
            case .plist:
                guard let v = plistValue else { fail(.malformed, "<plist> holds no value"); return }
                root = v
                inPlist = false
            case .key:
                frames[depth - 1].keyCount += 1
                // A key of the root dictionary: the only open container.
                if let wanted, skipping || (depth == 1 && frames[0].isDict && !wanted.contains(text.bytes)) {
                    skipping = true
                    return
                }
                let key: String
                if controlsSubstituted {
                    key = String(decoding: Lenient.restored(Array(text.bytes)), as: UTF8.self)
                } else {
                    key = String(decoding: text.bytes, as: UTF8.self)
                }
                frames[depth - 1].size = Sizer.add(frames[depth - 1].size, 8 + key.utf8.count)
                keys.append(PropertyList.Key(key))
            case .dict:
                depth -= 1
                let frame = frames[depth]
                guard frame.keyCount == frame.valueCount else {
                    // (Skipped keys are not on the stack: a partial read
                    // that fails is read again whole, which names the key.)
                    let pending = skipping || keys.count == frame.keyStart ? "" : keys.removeLast().string
                    fail(.malformed, "<key>\(pending)</key> has no value")
                    return
                }
                if skipping {
                    placeSkipped()
                    return
                }
                // On the stacks: every entry, or in a partial read's root
                // the wanted ones.
                let n = values.count - frame.valueStart
                // A keyed archive's UID, as CoreFoundation reads it: a
                // dictionary whose one key is CF$UID, with an integer.
                if frame.valueCount == 1, n == 1, keys[frame.keyStart] == XMLReader.uidKey,
                    let i = values[frame.valueStart].integerValue, let u = UInt32(exactly: i)
                {
                    keys.removeLast()
                    values.removeLast()
                    place(PropertyList(.uid(u)))
                    return
                }
                if wanted != nil && depth == 0 {
                    // The root of a partial read: the wanted entries only.
                    rootCount = frame.valueCount
                    var entries = PropertyListDictionary()
                    for i in 0..<n { entries[keys[frame.keyStart + i]] = values[frame.valueStart + i] }
                    removeItems(of: frame)
                    place(PropertyList(.dictionary(entries)))
                    return
                }
                var entries = PropertyListDictionary(minimumCapacity: n)
                for i in 0..<n { entries[keys[frame.keyStart + i]] = values[frame.valueStart + i] }
                removeItems(of: frame)
                if entries.count < n {
                    // A later duplicate key won: count only what is kept.
                    place(PropertyList(.dictionary(entries)))
                } else {
                    place(PropertyList(container: .dictionary(entries), depth: frame.depth, minimumXMLSize: frame.size))
                }
            case .array:
                depth -= 1
                let frame = frames[depth]
                if skipping {
                    placeSkipped()
                    return
                }
                let items = Array(values[frame.valueStart...])
                removeItems(of: frame)
                place(PropertyList(container: .array(items), depth: frame.depth, minimumXMLSize: frame.size))
            default:
                if skipping {
                    // Checked, not built: what `scalar` would refuse is
                    // refused by it, with its message.
                    if name == .string || (name == .integer && XMLReader.isPlainInteger(text.bytes)) || scalar(name) != nil {
                        placeSkipped()
                    }
                    return
                }
                guard let v = scalar(name) else { return }
                place(v)
            }
        }

        mutating func scalar(_ name: Element) -> PropertyList? {
            let t = text.bytes
            let result: PropertyList?
            switch name {
            case .string:
                if controlsSubstituted {
                    result = PropertyList(.string(String(decoding: Lenient.restored(Array(t)), as: UTF8.self)))
                } else {
                    result = PropertyList(.string(String(decoding: t, as: UTF8.self)))
                }
            case .integer: result = ScalarText.parseInteger(t).map { skipping ? skipped : PropertyList(.integer($0)) }
            case .real: result = ScalarText.parseReal(t).map { skipping ? skipped : PropertyList(.real($0)) }
            case .date: result = ScalarText.parseXMLDate(t).map { skipping ? skipped : PropertyList(.date($0)) }
            case .data: result = Base64.decode(t).map { skipping ? skipped : PropertyList(.data($0)) }
            case .true, .false:
                if ScalarText.trimmed(t).isEmpty {
                    result = name == .true ? PropertyList.trueValue : PropertyList.falseValue
                } else {
                    result = nil
                }
            default: result = nil
            }
            if result == nil {
                let shown = String(decoding: t.prefix(40), as: UTF8.self)
                let what: String
                switch name {
                case .integer: what = "not an integer in -2^63...2^64-1"
                case .real: what = "not a real number"
                case .date: what = "not a date of the form YYYY-MM-DDTHH:MM:SSZ (the month 01-12)"
                case .data: what = "not valid base64"
                default: what = "text not allowed"
                }
                fail(.malformed, "<\(name)>\(shown)</\(name)>: \(what)")
            }
            return result
        }

        mutating func place(_ v: PropertyList) {
            if depth > 0 {
                let top = frames + (depth - 1)
                top.pointee.valueCount += 1
                top.pointee.depth = max(top.pointee.depth, v.depth + 1)
                top.pointee.size = Sizer.add(top.pointee.size, v.minimumXMLSize)
                values.append(v)
            } else if inPlist {
                plistValue = v
            } else {
                root = v
            }
        }

        /// Counts a value that is not built (see `skipping`).
        mutating func placeSkipped() {
            frames[depth - 1].valueCount += 1
            // A value of the root dictionary ends: the next may be wanted.
            if depth == 1 { skipping = false }
        }

        mutating func characters(_ p: UnsafePointer<UInt8>, _ n: Int) {
            if inText {
                // Enforced here because the text of one element reaches us
                // in pieces.
                guard text.count + n <= PropertyList.maxTextLength else {
                    fail(.malformed, "<\(open[open.count - 1])> holds more than \(PropertyList.maxTextLength) bytes of text")
                    return
                }
                text.append(p, n)
                return
            }
            for i in 0..<n where !ScalarText.isSpace(p[i]) {
                fail(.malformed, "text outside a value element")
                return
            }
        }
    }

    /// Whether `t` is an integer ``ScalarText/parseInteger(_:)`` reads
    /// for certain: 1 to 18 decimal digits, `-` before them or not. A
    /// check of a value that is not built; anything else is parsed.
    @inline(__always)
    static func isPlainInteger(_ t: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = t.first == UInt8(ascii: "-") ? 1 : 0
        guard t.count > i && t.count - i <= 18 else { return false }
        while i < t.count {
            guard t[i] &- UInt8(ascii: "0") < 10 else { return false }
            i += 1
        }
        return true
    }

    /// Sums of ``PropertyList/minimumXMLSize``, saturating as its
    /// initialiser does.
    enum Sizer {
        @inline(__always)
        static func add(_ total: Int, _ n: Int) -> Int { total > Int.max - n ? Int.max : total + n }
    }

    @inline(__always)
    static func state(_ ctx: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<State> {
        let ctxt = ctx!.assumingMemoryBound(to: xmlParserCtxt.self)
        return ctxt.pointee._private.assumingMemoryBound(to: State.self)
    }

    /// Read-only after its one-time initialisation.
    nonisolated(unsafe) static let handler: xmlSAXHandler = {
        var h = xmlSAXHandler()
        h.initialized = XML_SAX2_MAGIC
        h.startElementNs = { ctx, localname, _, _, namespaces, namespaceList, attributes, _, attributeList in
            let s = XMLReader.state(ctx)
            guard s.pointee.error == nil, let localname else { return }
            guard let name = State.element(localname, s.pointee.elementCache) else {
                s.pointee.fail(.malformed, "unknown element <\(String(cString: localname))>")
                return
            }
            guard Int(namespaces) + Int(attributes) <= XMLReader.maxAttributes else {
                s.pointee.fail(.malformed, "an element carries more than \(XMLReader.maxAttributes) attributes")
                return
            }
            // Namespaces come as (prefix, URI) pairs, attributes as
            // (localname, prefix, URI, value start, value end).
            for i in 0..<2 * Int(namespaces) { s.pointee.count(namespaceList?[i]) }
            for i in 0..<Int(attributes) {
                s.pointee.count(attributeList?[5 * i])
                s.pointee.count(attributeList?[5 * i + 1])
                s.pointee.count(attributeList?[5 * i + 2])
            }
            guard s.pointee.error == nil else { return }
            s.pointee.start(name)
        }
        h.endElementNs = { ctx, _, _, _ in
            let s = XMLReader.state(ctx)
            guard s.pointee.error == nil else { return }
            s.pointee.end()
        }
        h.characters = { ctx, ch, len in
            let s = XMLReader.state(ctx)
            guard s.pointee.error == nil, let ch else { return }
            s.pointee.characters(ch, Int(len))
        }
        h.ignorableWhitespace = h.characters
        h.cdataBlock = h.characters
        h.processingInstruction = { ctx, target, _ in
            let s = XMLReader.state(ctx)
            guard s.pointee.error == nil else { return }
            s.pointee.count(target)
        }
        // An internal subset (`<!DOCTYPE plist [ ... ]>`) is refused before
        // libxml2 parses it: its declarations can only change what the
        // document means (entities, default attributes) or cost time (the
        // names of one content model go into libxml2's name table before
        // any handler sees them). Apple's DOCTYPE line has none.
        h.internalSubset = { ctx, _, _, _ in
            let s = XMLReader.state(ctx)
            guard s.pointee.error == nil, let input = s.pointee.ctxt.pointee.input, let cur = input.pointee.cur,
                let end = input.pointee.end, cur < end, cur.pointee == UInt8(ascii: "[")
            else { return }
            s.pointee.fail(.forbiddenMarkup, "a DOCTYPE with an internal subset ([...]) not allowed")
        }
        // Entities: declarations and every non-predefined reference are refused;
        // nothing external is ever resolved.
        h.entityDecl = { ctx, name, _, _, _, _ in
            let what = name.map { String(cString: $0) } ?? "?"
            XMLReader.state(ctx).pointee.fail(.forbiddenMarkup, "entity declaration <!ENTITY \(what)> not allowed")
        }
        h.unparsedEntityDecl = { ctx, _, _, _, _ in
            XMLReader.state(ctx).pointee.fail(.forbiddenMarkup, "unparsed entity declaration not allowed")
        }
        h.getEntity = { ctx, name in
            let what = name.map { String(cString: $0) } ?? "?"
            XMLReader.state(ctx).pointee.fail(.forbiddenMarkup, "entity reference &\(what); not allowed (only &amp; &lt; &gt; &quot; &apos;)")
            return nil
        }
        h.getParameterEntity = { ctx, name in
            let what = name.map { String(cString: $0) } ?? "?"
            XMLReader.state(ctx).pointee.fail(.forbiddenMarkup, "parameter entity %\(what); not allowed")
            return nil
        }
        h.resolveEntity = { ctx, _, _ in
            XMLReader.state(ctx).pointee.fail(.forbiddenMarkup, "external entity not allowed")
            return nil
        }
        h.reference = { ctx, name in
            let what = name.map { String(cString: $0) } ?? "?"
            XMLReader.state(ctx).pointee.fail(.forbiddenMarkup, "entity reference &\(what); not allowed")
        }
        h.serror = { userData, error in
            guard let error, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            let s = XMLReader.state(userData)
            guard s.pointee.error == nil else { return }
            var message = error.pointee.message.map { String(cString: $0) } ?? "XML error"
            while message.last == "\n" || message.last == " " { message.removeLast() }
            let code: PrefsError.Code
            switch Int(error.pointee.code) {
            case Int(XML_ERR_UNDECLARED_ENTITY.rawValue), Int(XML_WAR_UNDECLARED_ENTITY.rawValue),
                Int(XML_ERR_ENTITY_LOOP.rawValue), Int(XML_ERR_ENTITY_BOUNDARY.rawValue):
                code = .forbiddenMarkup
            case Int(XML_ERR_INTERNAL_ERROR.rawValue) where message.contains("depth"):
                // libxml2's own limit, met before ours when it parses a
                // document whole: said as ours is.
                code = .tooDeep
                message = "nesting deeper than \(PropertyList.maxNesting) levels"
            default:
                code = .malformed
            }
            s.pointee.error = PrefsError(code, "\(message) at line \(error.pointee.line)")
            s.pointee.xml.stopParser(s.pointee.ctxt)
        }
        return h
    }()
}
