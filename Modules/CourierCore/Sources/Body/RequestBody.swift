import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The body of an outgoing request, and whether it can be sent more than once.
///
/// Bytes and files can be read again for a retry or a redirect; a stream can
/// be read once. The retry stage checks ``isReplayable`` and fails with
/// ``CourierError/Code/bodyNotReplayable`` instead of resending an empty body.
///
/// Files are never loaded whole: a body made of parts (as multipart forms
/// are) reads each file in chunks while it is being sent.
public struct RequestBody: Sendable {
    /// One piece of a replayable body.
    public enum Part: Sendable, Hashable {
        /// Bytes in memory.
        case bytes([UInt8])
        /// A whole file on disk, read in chunks when sent; `length` is its size
        /// when the body was built.
        case file(URL, length: Int64)
    }

    enum Storage: Sendable {
        /// Parts, the first `skip` bytes of which are not sent (``remainder(after:)``).
        case parts([Part], skip: Int64 = 0)
        case stream(OneShotStream)
    }

    let storage: Storage

    /// The total length in bytes when known (always, except for some streams).
    public let length: Int64?

    /// Creates a body from bytes in memory.
    public init(bytes: [UInt8]) {
        self.storage = .parts([.bytes(bytes)])
        self.length = Int64(bytes.count)
    }

    /// Creates a body from parts sent one after another: bytes and whole files.
    public init(parts: [Part]) {
        self.storage = .parts(parts)
        self.length = parts.reduce(Int64(0)) { total, part in
            switch part {
            case .bytes(let bytes): total + Int64(bytes.count)
            case .file(_, let length): total + length
            }
        }
    }

    /// Creates a body from a file; its size is read now.
    /// - Throws: ``CourierError/Code/invalidRequest`` when the file cannot be read.
    public init(file: URL) throws(CourierError) {
        self.init(parts: [.file(file, length: try FileFacts.size(of: file))])
    }

    /// Creates a body that streams chunks and can be sent only once.
    ///
    /// - Parameters:
    ///   - length: The total length when known; `nil` sends it chunked.
    ///   - chunks: The chunks; iterated at most once.
    public init(
        length: Int64?,
        chunks: some AsyncSequence<[UInt8], any Error> & Sendable
    ) {
        self.storage = .stream(OneShotStream(chunks))
        self.length = length
    }

    /// Whether the body can be sent again (for a retry or a redirect).
    public var isReplayable: Bool {
        if case .parts = storage { return true }
        return false
    }

    /// The parts of a replayable body, for transports that read files on their
    /// own threads; `nil` for a stream, and for the rest of a body after an
    /// offset (a resumed upload's), which is read with ``chunks(chunkSize:)``.
    public var parts: [Part]? {
        if case .parts(let parts, 0) = storage { return parts }
        return nil
    }

    /// The same body without its first `offset` bytes, replayable as it is
    /// (a resumable upload sends the rest from the server's offset); `nil`
    /// for a stream or an offset outside the body.
    package func remainder(after offset: Int64) -> RequestBody? {
        guard case .parts(let parts, let skip) = storage, let length, offset >= 0, offset <= length else {
            return nil
        }
        return RequestBody(storage: .parts(parts, skip: skip + offset), length: length - offset)
    }

    private init(storage: Storage, length: Int64?) {
        self.storage = storage
        self.length = length
    }

    /// The body as a sequence of chunks; a replayable body's chunks are at
    /// most `chunkSize` bytes, a stream's are as its source made them.
    ///
    /// A replayable body can be iterated any number of times, each time from
    /// the start. A stream body hands out its source the first time (pulled on
    /// demand, nothing is buffered); every later call yields a sequence that
    /// fails with ``CourierError/Code/bodyNotReplayable``.
    public func chunks(chunkSize: Int = 64 * 1024) -> any AsyncSequence<[UInt8], any Error> & Sendable {
        switch storage {
        case .parts(let parts, let skip):
            let reader = BodyPartsReader(parts: parts, chunkSize: chunkSize, skip: skip)
            return AsyncThrowingStream(unfolding: { try reader.next() })
        case .stream(let stream):
            return stream.take()
        }
    }

    /// Reads the whole body into memory, refusing more than `limit` bytes.
    ///
    /// Meant for test doubles and small bodies; transports stream instead.
    public func collect(upTo limit: Int = 64 * 1024 * 1024) async throws -> [UInt8] {
        var result: [UInt8] = []
        for try await chunk in chunks() {
            guard result.count + chunk.count <= limit else {
                throw CourierError(
                    .invalidRequest, stage: .build, message: "request body exceeds \(limit) bytes")
            }
            result += chunk
        }
        return result
    }
}

/// A stream that hands out its source once; later takers get an error.
final class OneShotStream: Sendable {
    private let source: Locked<(any AsyncSequence<[UInt8], any Error> & Sendable)?>
    /// What an endpoint sending it compares by.
    let identity = BodyIdentity()

    init(_ chunks: some AsyncSequence<[UInt8], any Error> & Sendable) {
        self.source = Locked(chunks)
    }

    func take() -> any AsyncSequence<[UInt8], any Error> & Sendable {
        let taken = source.withLock { value in
            defer { value = nil }
            return value
        }
        if let taken { return taken }
        return AsyncThrowingStream<[UInt8], any Error>(unfolding: {
            throw CourierError(
                .bodyNotReplayable, stage: .transport,
                message: "the request body is a one-shot stream and was already sent")
        })
    }
}

extension RequestBody {
    /// A synchronous reader over a replayable body, for transports that read
    /// it on a thread of their own (libcurl's read callback); `nil` for a
    /// one-shot stream, which transports read with ``chunks(chunkSize:)``.
    ///
    /// Each reader starts at the beginning; files are opened while they are read.
    @_spi(Transport) public func makeReader(chunkSize: Int = 64 * 1024) -> RequestBodyReader? {
        guard case .parts(let parts, let skip) = storage else { return nil }
        return RequestBodyReader(BodyPartsReader(parts: parts, chunkSize: chunkSize, skip: skip))
    }
}

/// Reads a replayable body chunk by chunk, synchronously. Reads block on file
/// I/O: call it from a transport's own thread, never the concurrency pool.
@_spi(Transport) public final class RequestBodyReader: Sendable {
    private let reader: BodyPartsReader

    init(_ reader: BodyPartsReader) { self.reader = reader }

    /// The next chunk, or `nil` at the end.
    /// - Throws: ``CourierError/Code/invalidRequest`` when a file cannot be read.
    public func next() throws -> [UInt8]? { try reader.next() }
}
