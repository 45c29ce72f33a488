/// An error of libprefs: a stable code and a message naming what failed and
/// where. Thrown by the Swift API; handed to C as a `PrefsErrorRef`.
public struct PrefsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable error codes; the raw values are the C `PrefsErrorCode` numbers.
    public enum Code: Int32, Sendable {
        /// An argument was unusable (NULL, invalid UTF-8, wrong type).
        case invalidArgument = 1
        /// The input is not a property list; the message names the line.
        case malformed = 2
        /// DTD subsets, entity declarations, external or unknown entities.
        case forbiddenMarkup = 3
        /// Nesting deeper than ``PropertyList/maxNesting``.
        case tooDeep = 4
        /// A value the XML format cannot carry.
        case unrepresentable = 5
        /// An application ID the file layout cannot take.
        case invalidApplicationID = 6
        /// A file-system operation failed.
        case io = 7
        /// A stored domain file does not parse; it was kept.
        case corruptFile = 8
        /// A managed value decides this key; the write was refused.
        case forcedValue = 9
        /// The application's installed schema does not accept the value
        /// (type, range or listed values); the write was refused.
        case schemaViolation = 10
        /// A bug.
        case `internal` = 100
    }

    /// What kind of failure.
    public let code: Code
    /// For people, not for comparison: the wording may change.
    public let message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
