import Foundation

/// Limits and choices for parsing with jansson.
public struct JanssonOptions: Sendable, Hashable {
    /// What to do with bytes that are not valid UTF-8.
    public enum InvalidUTF8: Sendable, Hashable {
        /// Refuse the document (the default, as `JSONDecoder` does).
        case reject
        /// Replace each bad sequence with U+FFFD and go on.
        case replace
    }

    /// jansson's own nesting limit; deeper documents never parse.
    public static let parserDepthLimit = 2048

    /// The deepest nesting accepted (objects and arrays), at most 2048.
    public var maxDepth: Int
    /// The largest input accepted, in bytes.
    public var maxInputSize: Int
    /// Whether an object with the same key twice is refused (otherwise the last wins).
    public var rejectDuplicateKeys: Bool
    /// What to do with invalid UTF-8.
    public var invalidUTF8: InvalidUTF8
    /// Whether the tree is built in an arena and released in one go (the
    /// default, and faster: jansson otherwise makes one `malloc` per node).
    /// Turn it off to let AddressSanitizer see each node; the environment
    /// variable `COURIER_JANSSON_ARENA=0` turns it off by default.
    public var arena: Bool

    /// Whether ``arena`` is on by default: yes unless `COURIER_JANSSON_ARENA=0`.
    public static let arenaByDefault = ProcessInfo.processInfo.environment["COURIER_JANSSON_ARENA"] != "0"

    /// Creates options; the defaults suit API responses.
    public init(
        maxDepth: Int = 512, maxInputSize: Int = 64 * 1024 * 1024, rejectDuplicateKeys: Bool = false,
        invalidUTF8: InvalidUTF8 = .reject, arena: Bool = JanssonOptions.arenaByDefault
    ) {
        self.arena = arena
        self.maxDepth = min(max(1, maxDepth), Self.parserDepthLimit)
        self.maxInputSize = maxInputSize
        self.rejectDuplicateKeys = rejectDuplicateKeys
        self.invalidUTF8 = invalidUTF8
    }
}
