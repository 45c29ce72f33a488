// swift-tools-version: 6.1
import PackageDescription

// Sets of an existing key through the Swift API, in memory, for
// Benchmarks/sets/run.sh to count under callgrind. A package of its own so
// that the library's package gains no target for it.

// A path dependency's identity is its directory's name (the checkout's).
let rootDirectory = Context.packageDirectory + "/../.."
let rootIdentity =
    rootDirectory.split(separator: "/").filter { $0 != "." }.reduce(into: [Substring]()) { parts, part in
        if part == ".." { _ = parts.popLast() } else { parts.append(part) }
    }.last.map(String.init) ?? "main"

let package = Package(
    name: "set-benchmarks",
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(
            name: "set-bench",
            dependencies: [.product(name: "PrefsCore", package: rootIdentity)],
            path: "Sources/set-bench")
    ]
)
