import PrefsCore

/// `prefs convert`: the part of macOS's `plutil` people use on property-list
/// files, for any format the library reads.
///
/// - `-lint FILE...`: `FILE: OK` on stdout for each file that parses,
///   `FILE: why` on stderr for each that does not; exit 1 when any fails.
/// - `-convert xml1|binary1 [-o OUT] FILE...`: rewrites each file in that
///   format (in place, replaced through a temporary file and a rename), or
///   writes the one FILE to OUT (`-` for stdout); a file that does not parse
///   is reported and left as it is, and the others are still converted.
/// - `-p FILE`: prints the value as `read` prints one (`-` reads stdin).
enum Convert {
    /// The usage line of the verb.
    static let form = "convert -lint <file>... | -convert xml1|binary1 [-o <out>] <file>... | -p <file>"

    /// Runs the verb on the arguments after `convert`.
    static func run(_ args: ArraySlice<String>) throws(Failure) {
        var args = args
        guard let mode = args.popFirst() else { throw .usage("usage: prefs \(form)") }
        switch mode {
        case "-lint":
            guard !args.isEmpty else { throw .usage("usage: prefs \(form)") }
            try lint(Array(args))
        case "-convert":
            guard let name = args.popFirst(), let format = Command.FileFormat(rawValue: name) else {
                throw .usage("-convert takes xml1 or binary1\nusage: prefs \(form)")
            }
            var output: String?
            if args.first == "-o" {
                args.removeFirst()
                guard let o = args.popFirst() else { throw .usage("-o needs a file name") }
                output = o
            }
            guard !args.isEmpty else { throw .usage("usage: prefs \(form)") }
            if output != nil && args.count != 1 { throw .usage("-o takes one input file, not \(args.count)") }
            try convert(Array(args), to: format, output: output)
        case "-p":
            guard args.count == 1 else { throw .usage("usage: prefs \(form)") }
            let value = try parse(args.first!)
            Output.standard.data(OldStylePlist.formatBare(value) + "\n")
        default:
            throw .usage("convert takes -lint, -convert or -p, not \(quoted(mode))")
        }
    }

    /// The bytes of `path` (`-`: standard input) parsed, or a failure whose
    /// message is `path: why`.
    static func parse(_ path: String) throws(Failure) -> PropertyList {
        let bytes: [UInt8]
        do throws(PrefsError) {
            bytes = try path == "-" ? FileSystem.readToEnd(descriptor: 0, name: "standard input") : FileSystem.readUserFile(path)
            return try PropertyList.parse(bytes)
        } catch {
            throw .refused("\(shown(path)): \(shown(error.message))")
        }
    }

    /// `-lint`: every file is checked, whatever the earlier ones gave.
    static func lint(_ files: [String]) throws(Failure) {
        var failures: [String] = []
        for file in files {
            do throws(Failure) {
                _ = try parse(file)
                Output.standard.line("\(shown(file)): OK")
            } catch {
                failures.append(error.message)
            }
        }
        if !failures.isEmpty { throw .refused(failures.joined(separator: "\n")) }
    }

    /// `-convert`: each file in turn; a failure does not stop the others.
    static func convert(_ files: [String], to format: Command.FileFormat, output: String?) throws(Failure) {
        var failures: [String] = []
        for file in files {
            do throws(Failure) {
                let value = try parse(file)
                let bytes: [UInt8]
                do throws(PrefsError) {
                    bytes = try format.encode(value)
                } catch {
                    throw .refused("\(shown(file)): \(shown(error.message))")
                }
                let destination = output ?? file
                if destination == "-" {
                    try Output.standard.document(bytes, format)
                } else {
                    do throws(PrefsError) {
                        try FileSystem.replaceUserFile(destination, with: bytes, forTerminal: format.forTerminal)
                    } catch {
                        throw .refused("\(shown(file)): \(shown(error.message))")
                    }
                }
            } catch {
                failures.append(error.message)
            }
        }
        if !failures.isEmpty { throw .refused(failures.joined(separator: "\n")) }
    }
}
