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
    typealias CreateMemoryParserCtxt = @convention(c) (UnsafePointer<CChar>?, Int32) -> xmlParserCtxtPtr?
    typealias ParseDocument = @convention(c) (xmlParserCtxtPtr?) -> Int32
    typealias FreeDoc = @convention(c) (xmlDocPtr?) -> Void
    typealias FreeParserCtxt = @convention(c) (xmlParserCtxtPtr?) -> Void
    typealias CtxtUseOptions = @convention(c) (xmlParserCtxtPtr?, Int32) -> Int32
    typealias ParseChunk = @convention(c) (xmlParserCtxtPtr?, UnsafePointer<CChar>?, Int32, Int32) -> Int32
    typealias GetLineNumber = @convention(c) (UnsafeMutableRawPointer?) -> Int32
    typealias StopParser = @convention(c) (xmlParserCtxtPtr?) -> Void

    let createPushParserCtxt: CreatePushParserCtxt
    let createMemoryParserCtxt: CreateMemoryParserCtxt
    let parseDocument: ParseDocument
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

    /// Opens libxml2 with lazy binding: what it pulls in and that allows it
    /// (Debian's libstdc++, which ICU needs, 1,037 of its 4,300 symbol
    /// relocations; zlib, libgcc) binds a function at its first call
    /// instead of all of them now. libxml2, ICU and lzma are linked
    /// `-z now` and bind everything anyway. Measured on a first parse:
    /// 4.6 M instructions for the loading with `RTLD_NOW`, 3.2 M lazily
    /// (BENCHMARKS.md, "A domain another program wrote"). Objects marked
    /// `BIND_NOW`, and every object under `LD_BIND_NOW`, still bind at
    /// once; the lazily bound ones keep a writable PLT, as they have in any
    /// program that links them without `-z now`.
    private static func load() -> Result<LibXML2, PrefsError> {
        guard let handle = dlopen(soname, RTLD_LAZY | RTLD_LOCAL) else {
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
        let createPushParserCtxt = symbol("xmlCreatePushParserCtxt", as: CreatePushParserCtxt.self)
        let createMemoryParserCtxt = symbol("xmlCreateMemoryParserCtxt", as: CreateMemoryParserCtxt.self)
        let parseDocument = symbol("xmlParseDocument", as: ParseDocument.self)
        let freeDoc = symbol("xmlFreeDoc", as: FreeDoc.self)
        let freeParserCtxt = symbol("xmlFreeParserCtxt", as: FreeParserCtxt.self)
        let ctxtUseOptions = symbol("xmlCtxtUseOptions", as: CtxtUseOptions.self)
        let parseChunk = symbol("xmlParseChunk", as: ParseChunk.self)
        let getLineNumber = symbol("xmlSAX2GetLineNumber", as: GetLineNumber.self)
        let stopParser = symbol("xmlStopParser", as: StopParser.self)
        // Passed to the shim as plain addresses (the error function is variadic).
        let genericError = symbol("__xmlGenericError", as: UnsafeMutableRawPointer.self)
        let genericErrorContext = symbol("__xmlGenericErrorContext", as: UnsafeMutableRawPointer.self)
        let setGenericErrorFunc = symbol("xmlSetGenericErrorFunc", as: UnsafeMutableRawPointer.self)
        guard let initParser, let createPushParserCtxt, let createMemoryParserCtxt, let parseDocument, let freeDoc, let freeParserCtxt, let ctxtUseOptions,
            let parseChunk,
            let getLineNumber, let stopParser, let genericError, let genericErrorContext, let setGenericErrorFunc
        else {
            return .failure(
                PrefsError(.io, "cannot read or write XML property lists: \(soname) lacks \(missing.joined(separator: ", "))"))
        }
        initParser()
        return .success(
            LibXML2(
                createPushParserCtxt: createPushParserCtxt, createMemoryParserCtxt: createMemoryParserCtxt,
                parseDocument: parseDocument, freeDoc: freeDoc, freeParserCtxt: freeParserCtxt,
                ctxtUseOptions: ctxtUseOptions, parseChunk: parseChunk, getLineNumber: getLineNumber, stopParser: stopParser,
                errors: prefs_xml_error_functions_at(genericError, genericErrorContext, setGenericErrorFunc)))
    }

}
