// swift-tools-version: 6.1
import PackageDescription

// The C library links the Swift runtime in statically, so C programs need no
// Swift installation and pay no Foundation start-up; it exports only the C API
// (Prefs*, kPrefs*), plus the private entry point of the `prefs` command
// (prefs_tool_main, version node LIBPREFS_PRIVATE), and carries its SONAME.
// See BENCHMARKS.md for the start-up figures behind this choice.
let libraryLinkerFlags = [
    "-static-stdlib",
    // lld leaves no local symbols in the dynamic symbol table (gold keeps a few).
    "-use-ld=lld",
    // libstdc++ linked in statically (see Sources/Prefs/link/libstdc++.so).
    "-L", "\(Context.packageDirectory)/Sources/Prefs/link",
    "-Xlinker", "-soname=libprefs.so.1",
    // The library's threads outlive any call: it must never be unloaded
    // under them by dlclose.
    "-Xlinker", "-z", "-Xlinker", "nodelete",
    // Its 25,000 relative relocations packed (DT_RELR, glibc 2.36): fewer
    // pages to touch and less work for the loader at every start.
    "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
    "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/Prefs/exports.map",
]

let package = Package(
    name: "libprefs",
    products: [
        /// libprefs.so: the C API.
        .library(name: "prefs", type: .dynamic, targets: ["Prefs"]),
        /// The Swift API, for SwiftPM clients.
        .library(name: "PrefsCore", targets: ["PrefsCore"]),
        /// Foundation's Date, Data and URL for the Swift API, for programs
        /// that already use Foundation (the core never loads it).
        .library(name: "PrefsFoundation", targets: ["PrefsFoundation"]),
        /// libprefs as a provider for apple/swift-configuration: empty
        /// unless the trait `Configuration` is enabled.
        .library(name: "PrefsConfiguration", targets: ["PrefsConfiguration"]),
    ],
    // No trait is on by default, so a program that uses PrefsCore alone
    // neither fetches nor builds swift-configuration and its packages.
    traits: [
        .trait(
            name: "Configuration",
            description: "PrefsConfiguration: libprefs as a provider for apple/swift-configuration")
    ],
    dependencies: [
        // Only PrefsConfiguration uses it, under the trait above; its own
        // default traits (JSON) are left out, so nothing else of it is built.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: [])
    ],
    targets: [
        // libxml2's headers only: the library is loaded when XML is first
        // parsed, not linked (see Sources/CLibXML2/include/shim.h). Not a
        // system library with pkgConfig, which would link it: its headers
        // are reached through include/libxml, a link to
        // /usr/include/libxml2/libxml (where Debian's libxml2-dev and other
        // distributions put them; `pkg-config --cflags libxml-2.0`).
        // DWARF 4 for the C targets, as Swift writes: valgrind 3.19
        // (Debian 12), which the benchmarks run under, reads DWARF 5's
        // indexed forms wrongly and gives up on the whole library
        // ("possibly corrupted debuginfo file").
        .target(name: "CLibXML2", path: "Sources/CLibXML2", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        // The public header, as the C face's contract (`@c @implementation`).
        .systemLibrary(name: "CPrefs", path: "include/prefs"),
        // What Swift's Glibc module cannot reach: atomics on a shared file
        // mapping, and getauxval(AT_SECURE).
        .systemLibrary(name: "CSystemShims", path: "Sources/CSystemShims"),
        // Fork handlers installed at load time, and the state they guard.
        .target(name: "CProcessHooks", path: "Sources/CProcessHooks", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        .target(name: "PrefsCore", dependencies: ["CLibXML2", "CSystemShims", "CProcessHooks"]),
        // The `prefs` command, all in Sources/PrefsTool: its Swift code,
        // linked into libprefs.so and entered through prefs_tool_main; the
        // C programs bin/prefs (a main calling it) and prefs-ui (ncurses),
        // built by the Makefile; its shell completion. Not a product:
        // nothing else may import it. CPrefs for the header's version only.
        .target(name: "PrefsTool", dependencies: ["PrefsCore", "CPrefs"], exclude: ["programs", "completion"]),
        .target(
            name: "Prefs",
            dependencies: ["PrefsCore", "PrefsTool", "CPrefs"],
            exclude: ["exports.map", "link"],
            linkerSettings: [.unsafeFlags(libraryLinkerFlags)]
        ),
        .target(name: "PrefsFoundation", dependencies: ["PrefsCore"]),
        // Fixtures are read by path from the tests, not bundled as resources.
        // PrefsTool: a test runs `prefs write` in another process.
        .testTarget(name: "PrefsCoreTests", dependencies: ["PrefsCore", "PrefsTool"], exclude: ["Fixtures"]),
        .target(
            name: "PrefsConfiguration",
            dependencies: [
                "PrefsCore",
                .product(
                    name: "Configuration", package: "swift-configuration",
                    condition: .when(traits: ["Configuration"])),
            ],
            // As swift-configuration's protocols are compiled: their async
            // handlers run on the caller's executor.
            swiftSettings: [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]),
        .testTarget(name: "PrefsFoundationTests", dependencies: ["PrefsFoundation"]),
        .testTarget(name: "PrefsConfigurationTests", dependencies: ["PrefsConfiguration"]),
    ]
)
