// swift-tools-version: 6.1
import PackageDescription

// Reads through the Swift API against Foundation's UserDefaults, side by
// side in one process. A package of its own so that the library never
// depends on Foundation. Run `./run.sh`.
let package = Package(
    name: "swiftapi-benchmarks",
    dependencies: [.package(name: "libprefs", path: "../..")],
    targets: [
        .executableTarget(
            name: "swiftapi-bench",
            dependencies: [.product(name: "PrefsCore", package: "libprefs")])
    ]
)
