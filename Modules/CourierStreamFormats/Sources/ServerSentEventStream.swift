public import CourierCore
import HTTPTypes

extension APIClient {
    /// Server-sent events from the endpoint, as one sequence across
    /// reconnects, like a browser's `EventSource`.
    ///
    /// Each connection is a streaming call (`APIClient.stream(_:timeouts:plugins:)`)
    /// sent with `Accept: text/event-stream` and, once an event had an id,
    /// `Last-Event-ID`: interceptors run on every one, so a token refreshed
    /// meanwhile is the one sent. When a connection drops or the server ends
    /// the body, the endpoint's retry policy (or the client's) decides:
    /// it reconnects after the server's `retry` time when the stream sent
    /// one, after the policy's backoff otherwise, and gives up after
    /// ``/CourierCore/RetryPolicy/maxAttempts`` connections in a row without an event. A
    /// 204, a status the policy does not retry, a body that is not
    /// `text/event-stream`, or cancellation ends the sequence. With the
    /// default policy, ``/CourierCore/RetryPolicy/never``, the first drop ends it with
    /// its error and a clean end of the body ends it without one.
    ///
    /// Plugins see every connection's `willSend` and `didReceive`, and
    /// `process` once, at the end, with the event count in
    /// ``/CourierCore/RawResponse/stream``.
    ///
    /// ```swift
    /// let feed = client.events(.orderStatus(id: 42).retrying(.standard))
    /// for try await event in feed where event.type == "status" {
    ///     print(event.data)
    /// }
    /// ```
    /// - Parameters:
    ///   - endpoint: The event stream's API; its response type is not used.
    ///   - timeouts: Each connection's idle and total deadlines.
    ///   - plugins: Plugins for this call only, after the client's and the endpoint's.
    /// - Returns: The events; nothing is sent until the first is asked for.
    public func events<Response>(
        _ endpoint: Endpoint<Response>, timeouts: StreamTimeouts = .init(), plugins: [any Plugin] = []
    ) -> ServerSentEventStream {
        let policy = retryPolicy(of: endpoint)
        var connection = endpoint
        // The sequence retries connections itself: one policy, not two nested.
        connection.spec.retryPolicy = .never
        let base = connection
        let connect: ServerSentEventStream.Connect = {
            [self] (lastEventID: String) async throws(CourierError) -> StreamConnection in
            var endpoint = base
            endpoint.spec.headers[.accept] = "text/event-stream"
            endpoint.spec.headers[.cacheControl] = "no-cache"
            if !lastEventID.isEmpty, let name = HTTPField.Name("Last-Event-ID") {
                endpoint.spec.headers[name] = try RequestHeadCheck.checkedValue(lastEventID, for: name)
            }
            return try await openStream(endpoint, timeouts: timeouts, plugins: plugins, reportsEnd: false)
        }
        return ServerSentEventStream(connect: connect, policy: policy, clock: configuration.clock)
    }
}

/// Server-sent events across reconnects (`APIClient.events(_:timeouts:plugins:)`):
/// each event once, in order, with no gap the server can fill from
/// `Last-Event-ID`. Errors are ``/CourierCore/CourierError``.
public struct ServerSentEventStream: AsyncSequence, Sendable {
    typealias Connect =
        @Sendable (_ lastEventID: String) async throws(CourierError) -> APIClient.StreamConnection

    /// An event.
    public typealias Element = ServerSentEvent
    /// What ends the sequence early.
    public typealias Failure = CourierError

    let connect: Connect
    let policy: RetryPolicy
    let clock: any CourierClock

    /// Reads events, reconnecting as the policy allows.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// An event.
        public typealias Element = ServerSentEvent
        /// What ends the sequence early.
        public typealias Failure = CourierError

        let reader: EventSourceReader

        /// The next event; nil once the stream ended cleanly.
        public mutating func next() async throws(CourierError) -> ServerSentEvent? {
            try await reader.next()
        }

        /// The next event, read on the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(CourierError)
            -> ServerSentEvent?
        {
            try await reader.next()
        }

        /// The id a reconnect sends as `Last-Event-ID`.
        public var lastEventID: String { reader.parser.lastEventID }
        /// How many connections have delivered a head so far.
        public var connections: Int { reader.summary.connections }
    }

    /// An iterator: a reader of its own, which connects on its first `next()`.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: EventSourceReader(connect: connect, policy: policy, clock: clock))
    }
}

/// The state of one read of an event stream: the parser kept across
/// connections, the current body, the count of failed connections in a row.
/// Used from one task at a time (an iterator's), as iterators are.
final class EventSourceReader {
    private let connect: ServerSentEventStream.Connect
    private let policy: RetryPolicy
    private let clock: any CourierClock
    private(set) var parser = ServerSentEventParser()
    private(set) var summary = StreamSummary(events: 0, connections: 0)
    private var body: StreamedBody.AsyncIterator?
    private var current: APIClient.StreamConnection?
    /// The last connection's plugins and context, for `process` at the end.
    private var reporter: APIClient.StreamConnection?
    private var ready: [ServerSentEvent] = []
    private var readyIndex = 0
    /// Connections in a row that failed or ended without an event.
    private var failures = 0
    private var streakStart: Duration?
    private var ending: Result<Void, CourierError>?

    init(connect: @escaping ServerSentEventStream.Connect, policy: RetryPolicy, clock: any CourierClock) {
        self.connect = connect
        self.policy = policy
        self.clock = clock
    }

    deinit {
        guard ending == nil else { return }
        current?.reply.body.cancel()
        guard let reporter else { return }
        Self.reportLater(reporter, summary)
    }

    /// `process` for a read dropped before its end (from `deinit`, which cannot wait).
    private static func reportLater(_ reporter: APIClient.StreamConnection, _ summary: StreamSummary) {
        let error = CourierError(.cancelled, stage: .transport, message: "the event stream was dropped")
        Task { await report(reporter, summary, .failure(error)) }
    }

    /// The next event (on the caller's executor: the reader is one task's).
    nonisolated(nonsending) func next() async throws(CourierError) -> ServerSentEvent? {
        while true {
            if readyIndex < ready.count {
                defer { readyIndex += 1 }
                summary.events = (summary.events ?? 0) + 1
                failures = 0
                streakStart = nil
                return ready[readyIndex]
            }
            switch ending {
            case .success: return nil
            case .failure(let error): throw error
            case nil: break
            }
            if Task.isCancelled {
                try await end(
                    .failure(CourierError(.cancelled, stage: .transport, message: "the call was cancelled")))
                continue
            }
            guard var body else {
                try await open()
                continue
            }
            let chunk: [UInt8]?
            do {
                chunk = try await body.next()
            } catch {
                try await dropped(error)
                continue
            }
            self.body = body
            guard let chunk else {
                try await dropped(nil)
                continue
            }
            summary.bytes += Int64(chunk.count)
            summary.chunks += 1
            ready = parser.feed(chunk)
            readyIndex = 0
        }
    }

    /// Connects, or decides after a failed connection.
    private nonisolated(nonsending) func open() async throws(CourierError) {
        parser.reconnect()
        let connection: APIClient.StreamConnection
        do {
            connection = try await connect(parser.lastEventID)
        } catch {
            return try await retryOrEnd(after: error, clean: false)
        }
        reporter = connection
        summary.connections += 1
        let head = connection.reply.head
        if head.status.code == 204 {
            connection.reply.body.cancel()
            return try await end(.success(()))
        }
        let type = head.headerFields[.contentType].map(Validation.mediaType)
        guard type == "text/event-stream" else {
            connection.reply.body.cancel()
            var error = CourierError(
                .contentType, stage: .validation,
                message: "content type \(type ?? "(none)") is not text/event-stream: not an event stream")
            error.response = RawResponse(head: head)
            return try await end(.failure(error))
        }
        current = connection
        body = connection.reply.body.makeAsyncIterator()
    }

    /// The body ended (`error` nil) or failed: reconnect, or end.
    private nonisolated(nonsending) func dropped(_ error: CourierError?) async throws(CourierError) {
        parser.finish()
        body = nil
        current = nil
        ready = []
        readyIndex = 0
        guard let error else {
            let ended = CourierError(
                .transport, stage: .transport, message: "the server ended the event stream",
                underlying: TransportError(.connectionReset, "the server ended the event stream"))
            return try await retryOrEnd(after: ended, clean: true)
        }
        try await retryOrEnd(after: error, clean: false)
    }

    /// Asks the policy; waits and returns to reconnect, or ends the sequence
    /// (without an error after a clean end of the body).
    private nonisolated(nonsending) func retryOrEnd(after failure: CourierError, clean: Bool)
        async throws(CourierError)
    {
        let now = clock.now
        let start = streakStart ?? now
        streakStart = start
        failures += 1
        let decision = policy.decide(
            after: failure, attempt: failures, method: .get, bodyIsReplayable: true, elapsed: now - start,
            now: clock.date)
        switch decision {
        case .retry(let backoff):
            let delay = parser.reconnectionTime.map { Duration.milliseconds($0) } ?? backoff
            do {
                try await clock.sleep(for: delay)
            } catch {
                try await end(
                    .failure(CourierError(.cancelled, stage: .retry, message: "the call was cancelled")))
            }
        case .stop:
            try await end(clean ? .success(()) : .failure(failure))
        }
    }

    /// Ends the sequence once; plugins' `process` sees it.
    private nonisolated(nonsending) func end(_ result: Result<Void, CourierError>) async throws(CourierError)
    {
        guard ending == nil else { return }
        ending = result
        if let reporter { await Self.report(reporter, summary, result) }
        if case .failure(let error) = result { throw error }
    }

    private static func report(
        _ connection: APIClient.StreamConnection, _ summary: StreamSummary,
        _ result: Result<Void, CourierError>
    ) async {
        guard !connection.plugins.isEmpty else { return }
        var response = RawResponse(head: connection.reply.head)
        response.metrics.bytesReceived = summary.bytes
        response.stream = summary
        var outcome: Result<RawResponse, CourierError> = result.map { response }.mapError { error in
            var error = error
            error.response = error.response ?? response
            return error
        }
        // The events are delivered already: what the plugins return changes nothing.
        await PluginProcessing.run(connection.plugins, &outcome, connection.context)
    }
}
