public import CourierCore
public import HTTPTypes

/// Why a WebSocket connection failed: the underlying error of a
/// `CourierError.Code.webSocket`.
public struct WebSocketFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// A message larger than ``WebSocketOptions/maxMessageSize`` (1009 sent).
        case messageTooLarge
        /// A message in more frames than ``WebSocketOptions/maxFrameCount`` (1009 sent).
        case tooManyFrames
        /// A text message that is not UTF-8 (1007 sent).
        case invalidUTF8
        /// Frames RFC 6455 forbids: a continuation without a message, an
        /// unmasked control frame too long, an unknown opcode (1002 sent).
        case protocolViolation
        /// A ping went unanswered for ``WebSocketOptions/pongTimeout``.
        case pongTimeout
        /// The connection ended without a close frame (1006): dropped,
        /// reset, or cut mid-message.
        case closedAbnormally
        /// The peer did not answer a close within ``WebSocketOptions/closeTimeout``.
        case closeTimedOut
        /// The peer closed with a code other than 1000 or 1001.
        case closedByPeer
        /// A message sent after the connection closed.
        case alreadyClosed
    }

    /// What went wrong.
    public let kind: Kind
    /// The close frame sent or received for it, when there was one.
    public let close: WebSocketClose?
    /// What the connection said, for logs.
    public let detail: String

    /// A failure.
    public init(_ kind: Kind, close: WebSocketClose? = nil, detail: String) {
        self.kind = kind
        self.close = close
        self.detail = detail
    }

    /// `messageTooLarge (1009): …`.
    public var description: String {
        "\(kind)" + (close.map { " (\($0))" } ?? "") + ": \(detail)"
    }
}

extension CourierError.Code {
    /// A WebSocket connection failed after it was open: a limit, a
    /// protocol violation, a keepalive or close timeout, a dropped
    /// connection, or an unexpected close; ``/CourierCore/CourierError/underlying``
    /// is a ``WebSocketFailure``.
    public static let webSocket = Self("webSocket")
    /// The client's transport cannot open WebSocket connections (nothing was sent).
    public static let webSocketUnsupported = Self("webSocketUnsupported")
}

extension CourierError {
    /// `.webSocket` for `failure`.
    static func webSocket(_ failure: WebSocketFailure, request: HTTPRequest?) -> CourierError {
        CourierError(
            .webSocket, stage: .transport, message: "the WebSocket \(failure)", request: request,
            underlying: failure)
    }
}

extension WebSocketFailure {
    /// A message over the size limit, answered with 1009 (what every
    /// transport reports when its reading of the frames finds one).
    package static func messageTooLarge(_ detail: String) -> WebSocketFailure {
        WebSocketFailure(
            .messageTooLarge, close: WebSocketClose(code: 1009, reason: "message too large"), detail: detail)
    }

    /// A message in more frames than the limit, answered with 1009.
    package static func tooManyFrames(_ detail: String) -> WebSocketFailure {
        WebSocketFailure(
            .tooManyFrames, close: WebSocketClose(code: 1009, reason: "too many frames"), detail: detail)
    }

    /// Frames RFC 6455 forbids, answered with 1002.
    package static func protocolViolation(_ detail: String) -> WebSocketFailure {
        WebSocketFailure(
            .protocolViolation, close: WebSocketClose(code: 1002, reason: "protocol error"), detail: detail)
    }
}
