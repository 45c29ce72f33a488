internal import CLibXML2
import Glibc

/// Reads XML property lists with libxml2's SAX2 parser, building values as
/// elements close (no DOM). Strict: see ``XMLPropertyList/read(_:)``.
enum XMLReader {
    static func read(_ bytes: UnsafeRawBufferPointer) throws(PrefsError) -> PropertyList {
        if let lenient = Lenient.substituted(bytes) {
            let result = lenient.withUnsafeBytes { b in
                Result { () throws(PrefsError) in try read(b, controlsSubstituted: true) }
            }
            return try result.get()
        }
        return try read(bytes, controlsSubstituted: false)
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

    private static func read(_ bytes: UnsafeRawBufferPointer, controlsSubstituted: Bool) throws(PrefsError) -> PropertyList {
        let xml = try LibXML2.functions
        guard bytes.count > 0 else {
            throw PrefsError(.malformed, "empty input at line 1: no property list")
        }
        guard bytes.count <= Int(Int32.max) else {
            throw PrefsError(.malformed, "input of \(bytes.count) bytes is larger than the XML reader takes (2 GiB)")
        }
        let previousErrorHandler = prefs_xml_silence(xml.errors)
        defer { prefs_xml_restore(xml.errors, previousErrorHandler) }
        // No bytes yet: libxml2 reports what it finds in them (an encoding
        // it cannot read, say) through the handlers, which need the state
        // set below. Everything is pushed in chunks by `push`.
        var sax = handler
        guard let ctxt = xml.createPushParserCtxt(&sax, nil, nil, 0, nil) else {
            throw PrefsError(.internal, "libxml2 could not create a parser")
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
        defer { state.deinitialize(count: 1); state.deallocate() }
        ctxt.pointee._private = UnsafeMutableRawPointer(state)
        // No network, no DTD loading, no entity substitution, no huge input.
        _ = xml.ctxtUseOptions(ctxt, Int32(XML_PARSE_NONET.rawValue))
        push(bytes, to: ctxt, state, xml)

        if let error = state.pointee.error { throw error }
        guard ctxt.pointee.wellFormed != 0 else {
            throw PrefsError(.malformed, "malformed XML at line \(xml.getLineNumber(ctxt))")
        }
        guard let root = state.pointee.root else {
            throw PrefsError(.malformed, "no property-list value in the document")
        }
        return root
    }

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

    /// An open array or dictionary.
    struct Frame {
        var isDict: Bool
        var items: [PropertyList] = []
        /// A dictionary's entries in document order; the dictionary is built
        /// once, at its final size, when it closes (a later duplicate wins).
        var pairs: [(PropertyList.Key, PropertyList)] = []
        var pendingKey: PropertyList.Key? = nil
    }

    struct State {
        let ctxt: xmlParserCtxtPtr
        let xml: LibXML2
        /// Whether the document's control characters stand in as
        /// ``Lenient`` characters, to be restored in strings and keys.
        var controlsSubstituted = false
        var frames: [Frame] = []
        /// Open elements, innermost last (nil for the <plist> wrapper's siblings never happen: libxml2 refuses them).
        var open: [Element] = []
        var text: [UInt8] = []
        var inPlist = false
        var plistValue: PropertyList? = nil
        var root: PropertyList? = nil
        var error: PrefsError? = nil
        /// The distinct attribute and namespace names and URIs and
        /// processing-instruction targets seen so far, by the address
        /// libxml2 keeps each one at (its name table gives one address per
        /// name); see ``maxNames``.
        var names = Set<UnsafeRawPointer>()

        /// Counts `name` (an address in libxml2's name table); refuses
        /// the document past ``XMLReader/maxNames`` distinct names.
        mutating func count(_ name: UnsafePointer<UInt8>?) {
            guard let name, names.insert(UnsafeRawPointer(name)).inserted, names.count > XMLReader.maxNames else { return }
            fail(.malformed, "more than \(XMLReader.maxNames) distinct attribute, namespace and processing-instruction names")
        }

        var line: Int32 { xml.getLineNumber(ctxt) }

        mutating func fail(_ code: PrefsError.Code, _ message: String) {
            if error == nil { error = PrefsError(code, "\(message) at line \(line)") }
            xml.stopParser(ctxt)
        }

        /// Whether a value may start here; reports why not.
        mutating func valueMayStart(_ name: Element) -> Bool {
            if let top = frames.last {
                if top.isDict && top.pendingKey == nil {
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
            if frames.count + 1 > PropertyList.maxNesting && name != .plist {
                fail(.tooDeep, "nesting deeper than \(PropertyList.maxNesting) levels")
                return
            }
            switch name {
            case .plist:
                guard open.isEmpty else { fail(.malformed, "<plist> inside another element"); return }
                inPlist = true
            case .key:
                guard let top = frames.last, top.isDict else { fail(.malformed, "<key> outside a <dict>"); return }
                guard top.pendingKey == nil else { fail(.malformed, "<key> follows a <key> that has no value"); return }
                text.removeAll(keepingCapacity: true)
            case .dict, .array:
                guard valueMayStart(name) else { return }
                frames.append(Frame(isDict: name == .dict))
            default:
                guard valueMayStart(name) else { return }
                text.removeAll(keepingCapacity: true)
            }
            open.append(name)
        }

        mutating func end() {
            guard let name = open.popLast() else { return }
            switch name {
            case .plist:
                guard let v = plistValue else { fail(.malformed, "<plist> holds no value"); return }
                root = v
                inPlist = false
            case .key:
                let key = controlsSubstituted ? Lenient.restored(text) : text
                frames[frames.count - 1].pendingKey = PropertyList.Key(String(decoding: key, as: UTF8.self))
            case .dict:
                let frame = frames.removeLast()
                guard frame.pendingKey == nil else { fail(.malformed, "<key>\(frame.pendingKey!.string)</key> has no value"); return }
                // A keyed archive's UID, as CoreFoundation reads it: a
                // dictionary whose one key is CF$UID, with an integer.
                if frame.pairs.count == 1, frame.pairs[0].0 == XMLReader.uidKey,
                    let i = frame.pairs[0].1.integerValue, let u = UInt32(exactly: i)
                {
                    place(PropertyList(.uid(u)))
                    return
                }
                var entries = PropertyListDictionary(minimumCapacity: frame.pairs.count)
                for (k, v) in frame.pairs { entries[k] = v }
                place(PropertyList(.dictionary(entries)))
            case .array:
                place(PropertyList(.array(frames.removeLast().items)))
            default:
                guard let v = scalar(name) else { return }
                place(v)
            }
        }

        mutating func scalar(_ name: Element) -> PropertyList? {
            let result: PropertyList? = text.withUnsafeBufferPointer { t in
                switch name {
                case .string:
                    if controlsSubstituted { return PropertyList(.string(String(decoding: Lenient.restored(Array(t)), as: UTF8.self))) }
                    return PropertyList(.string(String(decoding: t, as: UTF8.self)))
                case .integer: return ScalarText.parseInteger(t).map { PropertyList(.integer($0)) }
                case .real: return ScalarText.parseReal(t).map { PropertyList(.real($0)) }
                case .date: return ScalarText.parseXMLDate(t).map { PropertyList(.date($0)) }
                case .data: return Base64.decode(t).map { PropertyList(.data($0)) }
                case .true, .false:
                    guard ScalarText.trimmed(t).isEmpty else { return nil }
                    return name == .true ? PropertyList.trueValue : PropertyList.falseValue
                default: return nil
                }
            }
            if result == nil {
                let shown = String(decoding: text.prefix(40), as: UTF8.self)
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
            let n = frames.count
            if n > 0 {
                if frames[n - 1].isDict {
                    frames[n - 1].pairs.append((frames[n - 1].pendingKey!, v))
                    frames[n - 1].pendingKey = nil
                } else {
                    frames[n - 1].items.append(v)
                }
            } else if inPlist {
                plistValue = v
            } else {
                root = v
            }
        }

        mutating func characters(_ p: UnsafePointer<UInt8>, _ n: Int) {
            if let current = open.last, current.holdsText {
                // Enforced here because the text of one element reaches us
                // in pieces.
                guard text.count + n <= PropertyList.maxTextLength else {
                    fail(.malformed, "<\(current)> holds more than \(PropertyList.maxTextLength) bytes of text")
                    return
                }
                text.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
                return
            }
            for i in 0..<n where !ScalarText.isSpace(p[i]) {
                fail(.malformed, "text outside a value element")
                return
            }
        }
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
            guard let name = Element(localname) else {
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
                code = .tooDeep
            default:
                code = .malformed
            }
            s.pointee.error = PrefsError(code, "\(message) at line \(error.pointee.line)")
            s.pointee.xml.stopParser(s.pointee.ctxt)
        }
        return h
    }()
}
