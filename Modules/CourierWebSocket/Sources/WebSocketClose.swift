/// A close frame's status code and reason (RFC 6455 §7.4): why a
/// connection ended, as one side told the other.
public struct WebSocketClose: Sendable, Hashable, CustomStringConvertible {
    /// The status code: 1000 normal, 1001 going away, 1002 protocol error,
    /// 1003 unacceptable data, 1007 invalid UTF-8, 1008 policy violation,
    /// 1009 message too big, 1011 server error; 3000–4999 the application's.
    public var code: UInt16
    /// Why, in at most 123 bytes of UTF-8 (longer is cut at a character).
    public var reason: String

    /// A close with `code` and `reason`.
    public init(code: UInt16, reason: String = "") {
        self.code = code
        var cut = reason
        while cut.utf8.count > 123 { cut.removeLast() }
        self.reason = cut
    }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normal = WebSocketClose(code: 1000)
    /// 1001: the endpoint is going away (a server shutting down, an app leaving).
    public static let goingAway = WebSocketClose(code: 1001)

    /// `1000 "bye"`.
    public var description: String { reason.isEmpty ? "\(code)" : "\(code) \"\(reason)\"" }

    /// Whether `code` may be sent in a close frame (RFC 6455 §7.4.2:
    /// 1005, 1006 and 1015 are never sent; 1004 and 1016–2999 are reserved).
    public static func maySend(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}

extension WebSocketClose {
    /// The close frame's payload: the code (big-endian), then the reason.
    package var payload: [UInt8] { [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8) }

    /// The close a close frame's payload says; `nil` when it carries no code.
    package init?(payload: some Collection<UInt8>) {
        guard payload.count >= 2 else { return nil }
        let bytes = Array(payload)
        self.init(
            code: UInt16(bytes[0]) << 8 | UInt16(bytes[1]),
            reason: String(decoding: bytes[2...], as: UTF8.self))
    }
}
