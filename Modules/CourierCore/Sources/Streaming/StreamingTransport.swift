public import HTTPTypes

/// A response whose body is read as it arrives.
@_spi(Transport) public struct StreamingResponse: Sendable {
    /// Status and header fields.
    public var head: HTTPResponse
    /// The body's chunks.
    public var body: ResponseBodyStream
    /// The last hop's request when redirects were followed (``RawResponse/redirectedTo``).
    package var redirectedTo: HTTPRequest?

    /// The status code.
    public var statusCode: Int { head.status.code }

    /// A response with this head and body.
    public init(head: HTTPResponse, body: ResponseBodyStream) {
        self.head = head
        self.body = body
    }
}

/// A transport that can hand a body over as it arrives
/// (CourierStreamFormats' `APIClient.stream(_:timeouts:plugins:)` needs one).
///
/// Beyond ``Transport``'s contract, `stream`:
/// - returns once the response head is in, a redirect's included (the
///   client follows redirects hop by hop and bounds the wait for each head
///   itself, as its ``RedirectPolicy`` says);
/// - bounds the whole exchange by ``TransportOptions/timeout`` when one is
///   given (the client gives none: the body's deadlines are the caller's);
/// - writes the body into a ``BodyStreamBuffer`` and stops reading from
///   the network while the buffer is full, so a slow reader holds the
///   sender back instead of filling memory;
/// - stops the transfer when the reader cancels (the buffer's `onCancel`).
///
/// Part of the `Transport` SPI: a public transport type conforms in an
/// extension marked the same way, so that apps do not see `stream`:
///
/// ```swift
/// @_spi(Transport) extension MyTransport: StreamingTransport {}
/// ```
@_spi(Transport) public protocol StreamingTransport: Transport {
    /// Sends the request and returns once the response head is in; the body
    /// follows through ``StreamingResponse/body``.
    /// - Throws: ``TransportError`` (or `CancellationError`) before the head.
    func stream(_ request: OutgoingRequest, options: TransportOptions) async throws -> StreamingResponse
}

extension StreamingResponse {
    /// `open`'s response, or ``TransportError/Code/timedOut`` when its head
    /// takes longer than `timeout` (`nil`: no limit): for a
    /// ``StreamingTransport`` whose own timeouts would bound the whole body.
    /// A response that comes after the deadline is cancelled, never left
    /// running.
    public static func head(
        within timeout: Duration?, _ open: @escaping @Sendable () async throws -> StreamingResponse
    ) async throws -> StreamingResponse {
        guard let timeout else { return try await open() }
        return try await withThrowingTaskGroup(of: StreamingResponse?.self) { group in
            group.addTask { try await open() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first: Result<StreamingResponse, any Error>
            do {
                if let response = try await group.next() ?? nil {
                    first = .success(response)
                } else {
                    first = .failure(TransportError(.timedOut, "no response head within \(timeout)"))
                }
            } catch {
                first = .failure(error)
            }
            group.cancelAll()
            // The loser: a timer cancelled, or a response that came too late.
            while let late = try? await group.next() { late?.body.cancel() }
            return try first.get()
        }
    }
}
