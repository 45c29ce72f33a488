// swift-tools-version: 6.1
// A program that keeps its settings with libprefs: typed keys with their
// defaults, a Codable value stored as a native dictionary, and a change
// stream. Build and run: swift run editor
import PackageDescription

let package = Package(
    name: "editor",
    dependencies: [
        // Your own program names the URL you cloned libprefs from, e.g.
        // .package(url: "https://example.com/libprefs.git", from: "1.1.0")
        .package(name: "libprefs", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "editor",
            dependencies: [.product(name: "PrefsCore", package: "libprefs")])
    ]
)
