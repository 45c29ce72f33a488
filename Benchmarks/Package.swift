// swift-tools-version: 6.1
import PackageDescription

// Codec benchmarks: libprefs' XML reader and writer against Foundation's
// PropertyListSerialization, libplist, and a libxml2 SAX2 pass that builds
// nothing. A package of its own so that the library never depends on
// Foundation or on the contenders. Run `./run.sh`.

// The library measured: the enclosing checkout, or another one named by
// PREFS_ROOT (for instance an exported commit, to compare two versions).
// A path dependency's identity is its directory's name.
let rootPath = Context.environment["PREFS_ROOT"] ?? ".."
let rootDirectory = rootPath.hasPrefix("/") ? rootPath : Context.packageDirectory + "/" + rootPath
let rootIdentity =
    rootDirectory.split(separator: "/").filter { $0 != "." }.reduce(into: [Substring]()) { parts, part in
        if part == ".." { _ = parts.popLast() } else { parts.append(part) }
    }.last.map(String.init) ?? "main"

let package = Package(
    name: "codec-benchmarks",
    dependencies: [.package(path: rootPath)],
    targets: [
        .systemLibrary(
            name: "BenchXML2",
            path: "Sources/BenchXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "BenchPlist",
            path: "Sources/BenchPlist",
            pkgConfig: "libplist-2.0",
            providers: [.apt(["libplist-dev"])]
        ),
        // libplist and the raw libxml2 SAX2 floor, behind a small C API.
        // DWARF 4, as Swift writes: valgrind 3.19 (Debian 12) misreads
        // clang's DWARF 5 and refuses the whole program under callgrind.
        .target(name: "Contenders", dependencies: ["BenchXML2", "BenchPlist"], cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        .executableTarget(
            name: "codec-bench",
            dependencies: [
                .product(name: "PrefsCore", package: rootIdentity),
                "Contenders",
            ]
        ),
    ]
)
