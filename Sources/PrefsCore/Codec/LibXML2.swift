internal import CLibXML2
import Glibc

/// libxml2's functions, loaded the first time XML is parsed (see
/// `Sources/CLibXML2/shim.h` for why the library is not linked). Loading
/// happens once per process; afterwards every field is read-only.
struct LibXML2: @unchecked Sendable {
    /// The shared object loaded: the ABI the headers describe.
    static let soname = "libxml2.so.2"

    typealias CreatePushParserCtxt =
        @convention(c) (
            UnsafeMutablePointer<xmlSAXHandler>?, UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?
        ) -> xmlParserCtxtPtr?
    typealias FreeDoc = @convention(c) (xmlDocPtr?) -> Void
    typealias FreeParserCtxt = @convention(c) (xmlParserCtxtPtr?) -> Void
    typealias CtxtUseOptions = @convention(c) (xmlParserCtxtPtr?, Int32) -> Int32
    typealias ParseChunk = @convention(c) (xmlParserCtxtPtr?, UnsafePointer<CChar>?, Int32, Int32) -> Int32
    typealias GetLineNumber = @convention(c) (UnsafeMutableRawPointer?) -> Int32
    typealias StopParser = @convention(c) (xmlParserCtxtPtr?) -> Void

    let createPushParserCtxt: CreatePushParserCtxt
    let freeDoc: FreeDoc
    let freeParserCtxt: FreeParserCtxt
    let ctxtUseOptions: CtxtUseOptions
    let parseChunk: ParseChunk
    let getLineNumber: GetLineNumber
    let stopParser: StopParser
    let errors: prefs_xml_error_functions

    /// libxml2, or why it could not be loaded.
    static let loaded: Result<LibXML2, PrefsError> = load()

    /// libxml2's functions; throws when the library cannot be loaded.
    static var functions: LibXML2 {
        get throws(PrefsError) { try loaded.get() }
    }

    private static func load() -> Result<LibXML2, PrefsError> {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(
                PrefsError(.io, "cannot read or write XML property lists: libxml2 could not be loaded (\(why)); install libxml2"))
        }
        var missing: [String] = []
        func symbol<F>(_ name: String, as type: F.Type) -> F? {
            guard let p = dlsym(handle, name) else {
                missing.append(name)
                return nil
            }
            return unsafeBitCast(p, to: type)
        }
        typealias Init = @convention(c) () -> Void
        let initParser = symbol("xmlInitParser", as: Init.self)
        let f = (
            symbol("xmlCreatePushParserCtxt", as: CreatePushParserCtxt.self),
            symbol("xmlFreeDoc", as: FreeDoc.self),
            symbol("xmlFreeParserCtxt", as: FreeParserCtxt.self),
            symbol("xmlCtxtUseOptions", as: CtxtUseOptions.self),
            symbol("xmlParseChunk", as: ParseChunk.self),
            symbol("xmlSAX2GetLineNumber", as: GetLineNumber.self),
            symbol("xmlStopParser", as: StopParser.self)
        )
        let e = (dlsym(handle, "__xmlGenericError"), dlsym(handle, "__xmlGenericErrorContext"), dlsym(handle, "xmlSetGenericErrorFunc"))
        guard let initParser, let f0 = f.0, let f1 = f.1, let f2 = f.2, let f3 = f.3, let f4 = f.4, let f5 = f.5, let f6 = f.6,
            let e0 = e.0, let e1 = e.1, let e2 = e.2
        else {
            if e.0 == nil { missing.append("__xmlGenericError") }
            if e.1 == nil { missing.append("__xmlGenericErrorContext") }
            if e.2 == nil { missing.append("xmlSetGenericErrorFunc") }
            return .failure(
                PrefsError(.io, "cannot read or write XML property lists: \(soname) lacks \(missing.joined(separator: ", "))"))
        }
        initParser()
        return .success(
            LibXML2(
                createPushParserCtxt: f0, freeDoc: f1, freeParserCtxt: f2, ctxtUseOptions: f3, parseChunk: f4, getLineNumber: f5,
                stopParser: f6, errors: prefs_xml_error_functions_at(e0, e1, e2)))
    }

}
