public import CourierCore

/// Lines, server-sent events and NDJSON values from any asynchronous
/// sequence of byte chunks — a streamed response body, or a test's own
/// stream. Chunks may split a line, a CRLF or a UTF-8 sequence anywhere.
extension AsyncSequence where Element == [UInt8], Self: Sendable {
    /// The body's lines as text (UTF-8, invalid bytes replaced), split at
    /// LF, CRLF or CR; a last line without a break is included.
    public var lines: some AsyncSequence<String, any Error> & Sendable { ByteChunkLineSequence(base: self) }

    /// The body as server-sent events, parsed as the HTML standard says.
    public var serverSentEvents: some AsyncSequence<ServerSentEvent, any Error> & Sendable {
        ServerSentEventSequence(base: self)
    }

    /// Each line decoded as one `T` (NDJSON), lazily: a blank line is
    /// skipped; a line that does not decode ends the sequence with
    /// ``NDJSONLineError`` naming its number, or, with
    /// ``NDJSONBadLines/skip(_:)``, is reported and passed over.
    public func decoded<T: Decodable & Sendable>(
        _ type: T.Type, using decoder: any ResponseDecoder, badLines: NDJSONBadLines = .fail
    ) -> some AsyncSequence<T, any Error> & Sendable {
        NDJSONSequence(base: self, decoder: decoder, badLines: badLines)
    }
}

/// Lines of text from a sequence of byte chunks.
package struct ByteChunkLineSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Base.Element == [UInt8] {
    let base: Base

    /// Reads lines from the base sequence.
    package struct AsyncIterator: AsyncIteratorProtocol {
        var lines: RawLineIterator<Base>

        /// The next line, or nil after the last.
        package mutating func next() async throws -> String? {
            try await lines.next().map { String(decoding: $0.bytes, as: UTF8.self) }
        }
    }

    /// An iterator over the lines.
    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lines: RawLineIterator(base.makeAsyncIterator()))
    }
}

/// Lines as bytes, numbered from 1, from a sequence of byte chunks.
struct RawLineIterator<Base: AsyncSequence> where Base.Element == [UInt8] {
    private var base: Base.AsyncIterator
    private var splitter = LineSplitter()
    private var ready: [[UInt8]] = []
    private var readyIndex = 0
    private var ended = false
    private(set) var number = 0

    init(_ base: Base.AsyncIterator) { self.base = base }

    mutating func next() async throws -> (bytes: [UInt8], number: Int)? {
        while readyIndex >= ready.count {
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            if ended { return nil }
            if let chunk = try await base.next() {
                splitter.feed(chunk) { ready.append(Array($0)) }
            } else {
                ended = true
                if let last = splitter.finish() { ready.append(last) }
            }
        }
        defer { readyIndex += 1 }
        number += 1
        return (ready[readyIndex], number)
    }
}

/// Server-sent events from a sequence of byte chunks.
package struct ServerSentEventSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Base.Element == [UInt8] {
    let base: Base

    /// Parses events as chunks arrive.
    package struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var parser = ServerSentEventParser()
        var ready: [ServerSentEvent] = []
        var readyIndex = 0

        /// The next event, or nil when the body ended.
        package mutating func next() async throws -> ServerSentEvent? {
            while readyIndex >= ready.count {
                ready = []
                readyIndex = 0
                guard let chunk = try await base.next() else {
                    parser.finish()
                    return nil
                }
                ready = parser.feed(chunk)
            }
            defer { readyIndex += 1 }
            return ready[readyIndex]
        }
    }

    /// An iterator over the events.
    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
}
