// swift-tools-version: 6.1
import PackageDescription

// A program with one mistake, expected NOT to build: a String assigned to
// an Int key. Tests/compile-fail/run.sh checks that the compiler says so
// plainly (see the expected lines there) instead of failing to produce a
// diagnostic.
let package = Package(
    name: "wrong-type",
    dependencies: [.package(name: "libprefs", path: "../../..")],
    targets: [
        .executableTarget(
            name: "wrong-type",
            dependencies: [.product(name: "PrefsCore", package: "libprefs")])
    ]
)
