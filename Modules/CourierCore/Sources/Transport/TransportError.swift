/// A failure below HTTP, as a transport reports it.
///
/// The pipeline turns it into a ``CourierError`` (code ``CourierError/Code/transport``,
/// ``CourierError/Code/timedOut`` or ``CourierError/Code/cancelled``) and the
/// retry policy decides on its ``code``.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure: an open set.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A stable identifier.
        public let rawValue: String
        /// Creates a code.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// A stable identifier.
        public var description: String { rawValue }

        /// The host name could not be resolved.
        public static let dnsFailure = Code("dnsFailure")
        /// The connection could not be established (refused, unreachable).
        public static let connectionFailed = Code("connectionFailed")
        /// The peer reset or closed the connection before the response was complete.
        public static let connectionReset = Code("connectionReset")
        /// The server closed the connection without sending a response.
        public static let emptyResponse = Code("emptyResponse")
        /// The exchange took longer than its timeout.
        public static let timedOut = Code("timedOut")
        /// The call's timeout passed while it waited for a connection to its
        /// host: every connection the transport allows to that host was in
        /// use (a transport's `maxConnectionsPerHost`). Nothing was sent, so
        /// any method may go again.
        public static let connectionUnavailable = Code("connectionUnavailable")
        /// TLS failed: handshake, certificate verification.
        public static let tls = Code("tls")
        /// The server's response broke HTTP (bad status line, bad chunking, bad lengths).
        public static let protocolError = Code("protocolError")
        /// The response body exceeded the allowed size.
        public static let bodyTooLarge = Code("bodyTooLarge")
        /// Writing a download to its destination failed.
        public static let fileSystem = Code("fileSystem")
        /// A redirect was not followed: a loop, too many hops, a refused target.
        public static let redirectRefused = Code("redirectRefused")
        /// The request was cancelled.
        public static let cancelled = Code("cancelled")
        /// The transport cannot do what was asked on this platform (see its
        /// documentation); nothing was sent.
        public static let unsupported = Code("unsupported")
        /// Anything else.
        public static let other = Code("other")
    }

    /// What kind of failure.
    public var code: Code
    /// Details from the transport (for example libcurl's error buffer).
    public var message: String

    /// Creates a transport error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
