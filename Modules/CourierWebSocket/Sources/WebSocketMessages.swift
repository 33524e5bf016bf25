public import CourierCore

/// A WebSocket's incoming messages, in order (``WebSocket/messages``):
/// ends when the connection closes normally, throws
/// `CourierError.Code.webSocket` when it fails.
public struct WebSocketMessages: AsyncSequence, Sendable {
    /// A whole message.
    public typealias Element = WebSocketMessage
    /// How the connection failed.
    public typealias Failure = CourierError

    let socket: WebSocket

    /// Reads the next message.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let socket: WebSocket

        /// The next message; `nil` after a normal close.
        public mutating func next() async throws(CourierError) -> WebSocketMessage? {
            try await socket.link.next(socket)
        }

        /// The next message; `nil` after a normal close.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(CourierError)
            -> WebSocketMessage?
        {
            try await socket.link.next(socket)
        }
    }

    /// An iterator over the messages; messages go to whichever iterator asks first.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(socket: socket) }
}

/// A WebSocket's incoming messages decoded by the client's decoder
/// (``WebSocket/messages(as:)``); a message that does not decode throws
/// `CourierError.Code.decoding` and leaves the connection open.
public struct WebSocketDecodedMessages<Model: Decodable & Sendable>: AsyncSequence, Sendable {
    /// A decoded message.
    public typealias Element = Model
    /// How the connection failed, or a message that did not decode.
    public typealias Failure = CourierError

    let socket: WebSocket

    /// Reads and decodes the next message.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let socket: WebSocket

        /// The next message, decoded; `nil` after a normal close.
        public mutating func next() async throws(CourierError) -> Model? {
            try await socket.nextDecoded(Model.self)
        }

        /// The next message, decoded; `nil` after a normal close.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(CourierError) -> Model?
        {
            try await socket.nextDecoded(Model.self)
        }
    }

    /// An iterator over the decoded messages.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(socket: socket) }
}

extension WebSocket {
    /// The next message decoded as `Model`; `nil` after a normal close.
    func nextDecoded<Model: Decodable>(_ type: Model.Type) async throws(CourierError) -> Model? {
        guard let message = try await link.next(self) else { return nil }
        return try session.decode(Model.self, message)
    }
}

extension WebSocketSession {
    /// `message` decoded as `Model` by the client's decoder (JSON when the
    /// client has none).
    func decode<Model: Decodable>(_ type: Model.Type, _ message: WebSocketMessage) throws(CourierError)
        -> Model
    {
        let bytes: [UInt8] =
            switch message {
            case .text(let text): Array(text.utf8)
            case .binary(let bytes): bytes
            }
        do {
            guard let decoder else {
                throw CourierError(
                    .noDecoder, stage: .decoding,
                    message:
                        "the client has no decoder for a WebSocket's messages (set configuration.decoder)",
                    request: request)
            }
            return try decoder.decode(Model.self, from: bytes, at: [])
        } catch let error as CourierError {
            throw error
        } catch {
            throw CourierError(
                .decoding, stage: .decoding,
                message: "a WebSocket message did not decode as \(Model.self): \(error)",
                request: request, underlying: error)
        }
    }
}
