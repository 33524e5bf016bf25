@_spi(Locking) @_spi(Transport) public import CourierCore
public import HTTPTypes

/// A streaming transport test double: each connection is answered by a
/// script — a head, then body steps (bytes, a wait for a gate, a drop, a
/// hang until cancelled) — written into a real ``/CourierCore/BodyStreamBuffer``, so the
/// reader's backpressure and cancellation behave as over a network.
///
/// ```swift
/// let transport = ScriptedStreamTransport { request, connection in
///     connection == 1
///         ? .stream(.eventStream, [.text("id: 1\ndata: a\n\n"), .drop])
///         : .stream(.eventStream, [.text("id: 2\ndata: b\n\n")])
/// }
/// ```
public final class ScriptedStreamTransport: Transport {
    /// One step of a body.
    public enum Step: Sendable {
        /// These bytes, as one chunk.
        case bytes([UInt8])
        /// Waits until the gate opens (the test decides when the next chunk comes).
        case wait(TestGate)
        /// The connection drops: the body fails with ``/CourierCore/TransportError/Code/connectionReset``.
        case drop
        /// Nothing more arrives until the reader gives up.
        case hang

        /// Text as UTF-8 bytes.
        public static func text(_ text: String) -> Step { .bytes(Array(text.utf8)) }
    }

    /// How one connection is answered.
    public enum Answer: Sendable {
        /// A head, then the body's steps; the body ends after the last.
        case stream(HTTPResponse, [Step])
        /// No head: the connection fails.
        case fail(TransportError)
    }

    /// A request as the transport received it, with its connection number (from 1).
    public struct Connection: Sendable {
        /// The head sent.
        public let head: HTTPRequest
        /// Which connection, from 1.
        public let number: Int
    }

    private struct State {
        var connections: [Connection] = []
        var cancelledBodies = 0
        var endedBodies = 0
    }

    private let script: @Sendable (OutgoingRequest, Int) -> Answer
    private let state = Locked(State())

    /// A transport answering connection number `n` (from 1) with `script(request, n)`.
    public init(_ script: @escaping @Sendable (OutgoingRequest, Int) -> Answer) {
        self.script = script
    }

    /// Every connection so far, in order.
    public var connections: [Connection] { state.withLock { $0.connections } }
    /// Bodies whose reader gave up before their end.
    public var cancelledBodies: Int { state.withLock { $0.cancelledBodies } }
    /// Bodies that ended one way or another (read to the end, dropped, cancelled).
    public var endedBodies: Int { state.withLock { $0.endedBodies } }

    /// Opens a connection and returns its head; the body is written by a
    /// task of its own.
    @_spi(Transport) public func stream(_ request: OutgoingRequest, options: TransportOptions) async throws
        -> StreamingResponse
    {
        try Task.checkCancellation()
        let number = state.withLock { state in
            state.connections.append(Connection(head: request.head, number: state.connections.count + 1))
            return state.connections.count
        }
        switch script(request, number) {
        case .fail(let error):
            throw error
        case .stream(let head, let steps):
            let buffer = BodyStreamBuffer()
            let writer = Task { [self] in
                defer { self.state.withLock { $0.endedBodies += 1 } }
                do {
                    for step in steps {
                        switch step {
                        case .bytes(let bytes): try await buffer.write(bytes)
                        case .wait(let gate): await gate.wait()
                        case .drop:
                            buffer.finish(
                                throwing: TransportError(.connectionReset, "the scripted connection dropped"))
                            return
                        case .hang:
                            try await Task.sleep(for: .seconds(86_400 * 365))
                        }
                    }
                    buffer.finish()
                } catch {
                    self.state.withLock { $0.cancelledBodies += 1 }
                }
            }
            buffer.setHandlers(onDrain: {}, onCancel: { writer.cancel() })
            return StreamingResponse(head: head, body: ResponseBodyStream(buffer))
        }
    }

    /// The whole body in memory (a call that does not stream).
    public func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
        let response = try await stream(request, options: options)
        let bytes = try await response.body.collect(upTo: options.maxBodySize)
        return RawResponse(head: response.head, body: .bytes(bytes))
    }
}

extension HTTPResponse {
    /// `200 OK` with `Content-Type: text/event-stream`.
    public static var eventStream: HTTPResponse {
        HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"])
    }

    /// `200 OK` with `Content-Type: application/x-ndjson`.
    public static var ndjson: HTTPResponse {
        HTTPResponse(status: .ok, headerFields: [.contentType: "application/x-ndjson"])
    }
}

/// Streams response bodies (the `Transport` SPI: `APIClient` calls it for
/// `stream`, `events` and downloads).
@_spi(Transport) extension ScriptedStreamTransport: StreamingTransport {}
