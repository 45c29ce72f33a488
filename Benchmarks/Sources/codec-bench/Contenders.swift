import Contenders
import Foundation
import PrefsCore

/// Who is measured.
enum Contender: String, CaseIterable {
    case prefs = "PrefsCore"
    case foundation = "PropertyListSerialization"
    case libplist = "libplist"
    case floor = "libxml2 SAX floor"

    /// The name on the command line of the `parse-once` sub-mode.
    var flag: String {
        switch self {
        case .prefs: "prefs"
        case .foundation: "foundation"
        case .libplist: "libplist"
        case .floor: "floor"
        }
    }

    /// Whether the contender writes XML (the floor only reads).
    var writes: Bool { self != .floor }
}

/// A libplist tree, freed with its owner.
final class PlistTree {
    let handle: UnsafeMutableRawPointer
    init?(_ bytes: [UInt8]) {
        guard
            let h = bytes.withUnsafeBufferPointer({ b in
                b.withMemoryRebound(to: CChar.self) { cb_plist_parse($0.baseAddress, UInt32(b.count)) }
            })
        else { return nil }
        handle = h
    }
    /// Parses a binary property list with `plist_from_bin`.
    init?(binary bytes: [UInt8]) {
        guard
            let h = bytes.withUnsafeBufferPointer({ b in
                b.withMemoryRebound(to: CChar.self) { cb_plist_parse_bin($0.baseAddress, UInt32(b.count)) }
            })
        else { return nil }
        handle = h
    }
    deinit { cb_plist_free(handle) }
    var topLevelCount: Int { Int(cb_plist_dict_size(handle)) }
}

/// XML text written by libplist, freed with its owner.
final class PlistXML {
    let text: UnsafeMutablePointer<CChar>
    let count: Int
    init?(_ tree: PlistTree) {
        var n: UInt32 = 0
        guard let t = cb_plist_write(tree.handle, &n) else { return nil }
        text = t
        count = Int(n)
    }
    deinit { cb_plist_xml_free(text) }
}

/// One input in the forms the contenders take.
struct Input {
    let bytes: [UInt8]
    let data: Data
    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.data = Data(bytes)
    }
}

enum Run {
    static func prefsParse(_ input: Input) -> PropertyList {
        do { return try PropertyList.parse(input.bytes) } catch { fatalError("PrefsCore refused the input: \(error)") }
    }

    static func prefsWrite(_ value: PropertyList) -> [UInt8] {
        do { return try value.xmlData() } catch { fatalError("PrefsCore could not write: \(error)") }
    }

    static func foundationParse(_ data: Data) -> Any {
        var format = PropertyListSerialization.PropertyListFormat.xml
        do { return try PropertyListSerialization.propertyList(from: data, options: [], format: &format) } catch {
            fatalError("PropertyListSerialization refused the input: \(error)")
        }
    }

    static func foundationWrite(_ value: Any) -> Data {
        do { return try PropertyListSerialization.data(fromPropertyList: value, format: .xml, options: 0) } catch {
            fatalError("PropertyListSerialization could not write: \(error)")
        }
    }

    static func libplistParse(_ input: Input) -> PlistTree {
        guard let tree = PlistTree(input.bytes) else { fatalError("libplist refused the input") }
        return tree
    }

    static func libplistWrite(_ tree: PlistTree) -> PlistXML {
        guard let xml = PlistXML(tree) else { fatalError("libplist could not write") }
        return xml
    }

    /// Start-element events seen by the floor pass.
    static func floor(_ input: Input) -> Int {
        let n = input.bytes.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { cb_sax_floor($0.baseAddress, Int32(b.count)) }
        }
        guard n >= 0 else { fatalError("libxml2 found the input malformed") }
        return n
    }
}
