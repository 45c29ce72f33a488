// Runs the TestUserDefaults cases (TestUserDefaults.swift, as
// swift-corelibs-foundation has them, with the type name changed and one
// counter made Sendable) in a child process of this test binary with a
// config directory of its own, through the few XCTest names they use,
// given here over Swift Testing.
import Foundation
import Testing

/// The XCTest names the ported cases use. (A type alias, so that the
/// build's XCTest discovery does not take the cases for XCTest's.)
typealias XCTestCase = PortedTestCase

/// XCTestCase's expectations, over Swift Testing.
class PortedTestCase {
    /// What ``expectation(description:)`` returns.
    final class Expectation: @unchecked Sendable {
        let description: String
        private let lock = NSLock()
        private var fulfilled = false
        init(_ description: String) { self.description = description }
        func fulfill() { lock.withLock { fulfilled = true } }
        var isFulfilled: Bool { lock.withLock { fulfilled } }
    }
    private var expectations: [Expectation] = []

    required init() {}

    func expectation(description: String) -> Expectation {
        let e = Expectation(description)
        expectations.append(e)
        return e
    }

    /// Waits until every expectation is fulfilled, failing after `timeout`.
    func waitForExpectations(timeout: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        let end = Date().addingTimeInterval(timeout)
        while expectations.contains(where: { !$0.isFulfilled }) && Date() < end { usleep(5_000) }
        for e in expectations where !e.isFulfilled {
            Issue.record("expectation not fulfilled: \(e.description)", sourceLocation: sourceLocation)
        }
    }
}

/// A count that `@Sendable` closures (notification observers) may raise
/// from any thread.
final class SendableCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    /// Adds one; returns the new count.
    func increment() -> Int {
        lock.withLock {
            value += 1
            return value
        }
    }
}

func XCTAssertEqual<T: Equatable>(
    _ a: @autoclosure () throws -> T, _ b: @autoclosure () throws -> T, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(throws: Never.self, sourceLocation: sourceLocation) {
        let (x, y) = (try a(), try b())
        #expect(x == y, sourceLocation: sourceLocation)
    }
}

func XCTAssertNotNil(_ a: @autoclosure () -> Any?, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(a() != nil, sourceLocation: sourceLocation)
}

func XCTAssertFalse(_ a: @autoclosure () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!a(), sourceLocation: sourceLocation)
}

func XCTFail(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
}

private let portChildVariable = "PREFS_PORTED_TESTUSERDEFAULTS"

/// The cases, one test each, run only in the child (serialized: one
/// case counts the change notifications of the whole process).
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment[portChildVariable] == "1"))
struct TestUserDefaultsCases {
    let t = TestUserDefaults()
    @Test func test_createUserDefaults() { t.test_createUserDefaults() }
    @Test func test_getRegisteredDefaultItem() { t.test_getRegisteredDefaultItem() }
    @Test func test_getRegisteredDefaultItem_NSString() { t.test_getRegisteredDefaultItem_NSString() }
    @Test func test_getRegisteredDefaultItem_String() { t.test_getRegisteredDefaultItem_String() }
    @Test func test_getRegisteredDefaultItem_NSURL() { t.test_getRegisteredDefaultItem_NSURL() }
    @Test func test_getRegisteredDefaultItem_URL() { t.test_getRegisteredDefaultItem_URL() }
    @Test func test_getRegisteredDefaultItem_NSData() { t.test_getRegisteredDefaultItem_NSData() }
    @Test func test_getRegisteredDefaultItem_Data() { t.test_getRegisteredDefaultItem_Data() }
    @Test func test_getRegisteredDefaultItem_BoolFromString() { t.test_getRegisteredDefaultItem_BoolFromString() }
    @Test func test_getRegisteredDefaultItem_IntFromString() { t.test_getRegisteredDefaultItem_IntFromString() }
    @Test func test_getRegisteredDefaultItem_DoubleFromString() { t.test_getRegisteredDefaultItem_DoubleFromString() }
    @Test func test_setValue_NSString() { t.test_setValue_NSString() }
    @Test func test_setValue_String() { t.test_setValue_String() }
    @Test func test_setValue_NSURL() { t.test_setValue_NSURL() }
    @Test func test_setValue_URL() { t.test_setValue_URL() }
    @Test func test_setValue_NSData() { t.test_setValue_NSData() }
    @Test func test_setValue_Data() { t.test_setValue_Data() }
    @Test func test_setValue_BoolFromString() { t.test_setValue_BoolFromString() }
    @Test func test_setValue_IntFromString() { t.test_setValue_IntFromString() }
    @Test func test_setValue_FloatFromBool() { t.test_setValue_FloatFromBool() }
    @Test func test_setValue_FloatFromInt() { t.test_setValue_FloatFromInt() }
    @Test func test_setValue_FloatFromDouble() { t.test_setValue_FloatFromDouble() }
    @Test func test_setValue_FloatFromString() { t.test_setValue_FloatFromString() }
    @Test func test_setValue_DoubleFromString() { t.test_setValue_DoubleFromString() }
    @Test func test_volatileDomains() { t.test_volatileDomains() }
    @Test func test_persistentDomain() { t.test_persistentDomain() }
}

@Suite("swift-corelibs-foundation's TestUserDefaults, ported")
struct PortedTestUserDefaults {
    /// Every case passes in a child whose standard preferences live in a
    /// directory of their own.
    @Test func everyCasePasses() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-port-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/config", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "/proc/self/exe"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = ["--testing-library", "swift-testing", "--filter", "TestUserDefaultsCases"]
        var env = ProcessInfo.processInfo.environment
        env[portChildVariable] = "1"
        env["XDG_CONFIG_HOME"] = root + "/config"
        env["XDG_CACHE_HOME"] = root + "/cache"
        p.environment = env
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "the ported cases failed:\n\(output)")
        #expect(output.contains("Test run with 26 tests"), "not every case ran:\n\(output)")
    }
}
