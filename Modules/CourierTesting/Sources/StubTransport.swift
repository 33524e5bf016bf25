@_spi(Locking) @_spi(Transport) public import CourierCore
import Foundation
public import HTTPTypes
import Synchronization

/// A transport that answers from a script, for tests and previews: the
/// equivalent of Moya's `sampleData` and stub behaviours, kept outside your
/// endpoint types. Every interceptor, plugin, validation and retry still runs.
///
/// ```swift
/// StubTransport.immediate(.json(#"{"id": 7, "name": "Ada"}"#))
/// StubTransport.sequence([.failure(.connectionReset), .status(503), .envelope(code: 0, data: "{}")])
/// StubTransport(latency: .seconds(2), clock: testClock) { request in
///     request.head.path == "/v1/users/7" ? .json(user) : .status(404)
/// }
/// ```
///
/// With a `latency`, the answer comes after that much time on the given clock
/// (a ``TestClock`` in tests); a shorter request timeout fails with
/// ``/CourierCore/TransportError/Code/timedOut``; cancelling the task, or the call
/// (``/CourierCore/TransportOptions/cancellation``), stops the wait.
public struct StubTransport: Transport {
    /// What the responder is given: the head and the collected body.
    public struct Request: Sendable {
        /// The request head as sent.
        public let head: HTTPRequest
        /// The body bytes, or `nil` without a body.
        public let body: [UInt8]?
    }

    /// What a sequence does after its last outcome.
    public enum Exhausted: Sendable {
        /// Keep answering with the last outcome.
        case repeatLast
        /// Fail every further request with ``/CourierCore/TransportError/Code/other``.
        case fail
    }

    private let latency: Duration
    private let clock: any CourierClock
    private let responder: @Sendable (Request) async throws -> StubOutcome

    /// Creates a stub answering through a closure.
    public init(
        latency: Duration = .zero, clock: any CourierClock = SystemClock(),
        _ responder: @escaping @Sendable (Request) async throws -> StubOutcome
    ) {
        self.latency = latency
        self.clock = clock
        self.responder = responder
    }

    /// Always the same outcome.
    public static func immediate(_ outcome: StubOutcome) -> StubTransport {
        StubTransport { _ in outcome }
    }

    /// One outcome per request, in order (fail, fail, succeed).
    public static func sequence(
        _ outcomes: [StubOutcome], exhausted: Exhausted = .repeatLast, latency: Duration = .zero,
        clock: any CourierClock = SystemClock()
    ) -> StubTransport {
        let index = Locked(0)
        return StubTransport(latency: latency, clock: clock) { _ in
            let position = index.withLock { value in
                defer { value += 1 }
                return value
            }
            if position < outcomes.count { return outcomes[position] }
            guard exhausted == .repeatLast, let last = outcomes.last else {
                return .failure(.other, "the stub sequence has no outcome left for request \(position + 1)")
            }
            return last
        }
    }

    /// Answers from the script; see the type's documentation.
    public func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
        let body = try await request.body?.collect()
        if let body {
            options.progress?(
                TransferProgress(
                    direction: .upload, completed: Int64(body.count), total: request.body?.length))
        }
        if latency > .zero {
            if let timeout = options.timeout, timeout < latency {
                try await options.sleep(for: timeout, on: clock)
                throw TransportError(
                    .timedOut, "the stub's latency \(latency) exceeds the timeout \(timeout)")
            }
            try await options.sleep(for: latency, on: clock)
        }
        try options.checkCancellation()
        let outcome = try await responder(Request(head: request.head, body: body))
        switch outcome.kind {
        case .failure(let error):
            throw error
        case .response(let head, let bytes):
            guard bytes.count <= options.maxBodySize else {
                throw TransportError(
                    .bodyTooLarge, "the body has \(bytes.count) bytes, over \(options.maxBodySize)")
            }
            options.progress?(
                TransferProgress(
                    direction: .download, completed: Int64(bytes.count), total: Int64(bytes.count)))
            let metrics = TransportMetrics(
                total: latency, bytesSent: Int64(body?.count ?? 0), bytesReceived: Int64(bytes.count),
                connectionReused: false, httpVersion: "1.1")
            guard let destination = options.destination else {
                return RawResponse(head: head, body: .bytes(bytes), metrics: metrics)
            }
            try Self.write(bytes, to: destination)
            return RawResponse(head: head, body: .file(destination.url), metrics: metrics)
        }
    }

    /// Writes the body as a transport would: beside the destination, moved
    /// into place when complete (``PartialDownload``).
    private static func write(_ bytes: [UInt8], to destination: DownloadTarget) throws {
        let download = try PartialDownload(destination)
        try download.write(bytes)
        _ = try download.commit(expectedLength: Int64(bytes.count))
    }
}
