@_spi(Locking) @_spi(Transport) public import CourierCore
public import HTTPTypes
import Synchronization

/// Wraps a transport and records every request that reached it, so a test
/// can assert exactly what was sent: headers added by interceptors, how many
/// attempts a retry made, the encoded body.
///
/// Replayable bodies are recorded as bytes; a one-shot stream is passed on
/// untouched and recorded without its bytes, so recording never changes what
/// is sent.
public final class RecordingTransport: Transport {
    /// One request as it reached the transport.
    public struct Record: Sendable {
        /// The head.
        public let head: HTTPRequest
        /// The body bytes; `nil` without a body or for a one-shot stream.
        public let body: [UInt8]?
        /// The body's declared length.
        public let bodyLength: Int64?

        /// The body as UTF-8 text.
        public var bodyText: String? { body.map { String(decoding: $0, as: UTF8.self) } }
    }

    private let wrapped: any Transport
    private let storage = Locked<[Record]>([])

    /// Records requests on their way to `transport`.
    public init(_ transport: any Transport) { self.wrapped = transport }

    /// What the wrapped transport says: the options it is given pass through.
    @_spi(Transport) public var pausesTransfers: Bool {
        (wrapped as? any PausableTransport)?.pausesTransfers ?? false
    }

    /// Every request so far, in order.
    public var records: [Record] { storage.withLock { $0 } }

    /// Records, then forwards.
    public func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
        let bytes = request.body?.isReplayable == true ? try await request.body?.collect() : nil
        storage.withLock {
            $0.append(Record(head: request.head, body: bytes, bodyLength: request.body?.length))
        }
        return try await wrapped.send(request, options: options)
    }
}

/// Pauses, and reports interim responses, when the wrapped transport does:
/// the options pass through.
@_spi(Transport) extension RecordingTransport: PausableTransport, InterimResponseTransport {
    /// What the wrapped transport says.
    public var reportsInterimResponses: Bool {
        (wrapped as? any InterimResponseTransport)?.reportsInterimResponses ?? false
    }
}
