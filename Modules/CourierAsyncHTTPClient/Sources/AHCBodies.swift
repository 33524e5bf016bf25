#if AsyncHTTPClient
    @_spi(Transport) import CourierCore
    import HTTPTypes
    import NIOCore
    import NIOPosix

    #if canImport(FoundationEssentials)
        import FoundationEssentials
    #else
        import Foundation
    #endif

    /// A request body's chunks as the `ByteBuffer`s async-http-client
    /// uploads, counted and reported as progress as they are pulled.
    struct ByteBufferChunks: AsyncSequence, Sendable {
        typealias Element = ByteBuffer

        let chunks: any AsyncSequence<[UInt8], any Error> & Sendable
        let sent: SentBytes
        let progress: (@Sendable (TransferProgress) -> Void)?
        let total: Int64?
        /// The app's pause: no chunk is pulled while it lasts.
        let pause: TransferControl?

        init(
            _ chunks: any AsyncSequence<[UInt8], any Error> & Sendable, sent: SentBytes,
            progress: (@Sendable (TransferProgress) -> Void)?, total: Int64?, pause: TransferControl?
        ) {
            self.chunks = chunks
            self.sent = sent
            self.progress = progress
            self.total = total
            self.pause = pause
        }

        func makeAsyncIterator() -> Iterator {
            Iterator(
                base: chunks.makeAsyncIterator(), sent: sent, progress: progress, total: total, pause: pause)
        }

        struct Iterator: AsyncIteratorProtocol {
            var base: any AsyncIteratorProtocol<[UInt8], any Error>
            let sent: SentBytes
            let progress: (@Sendable (TransferProgress) -> Void)?
            let total: Int64?
            let pause: TransferControl?

            mutating func next() async throws -> ByteBuffer? {
                await pause?.waitWhilePaused()
                guard let chunk = try await base.next() else { return nil }
                sent.value += Int64(chunk.count)
                progress?(TransferProgress(direction: .upload, completed: sent.value, total: total))
                return ByteBuffer(bytes: chunk)
            }
        }
    }

    /// A download's ``CourierCore/PartialDownload``, written on NIO's
    /// blocking-I/O thread pool so that file writes never hold a thread of
    /// the Swift concurrency pool.
    ///
    /// `@unchecked Sendable` is safe: `PartialDownload` is not thread-safe,
    /// but the body loop awaits each write, the commit and the discard
    /// before it starts the next, so they never overlap, and the thread
    /// pool's completion happens before the await returns (the same
    /// ordering `PartialDownload` gets on a transport's own thread).
    final class DownloadFile: @unchecked Sendable {
        private let download: PartialDownload

        init(_ destination: DownloadTarget, head: HTTPResponse) throws(TransportError) {
            download = try PartialDownload(destination)
            download.head = head
        }

        func write(_ buffer: ByteBuffer) async throws {
            try await NIOThreadPool.singleton.runIfActive {
                try buffer.withUnsafeReadableBytes { bytes in try self.download.write(bytes) }
            }
        }

        func commit(expectedLength: Int64?) async throws -> URL {
            try await NIOThreadPool.singleton.runIfActive {
                try self.download.commit(expectedLength: expectedLength)
            }
        }

        /// Removes the file, or keeps it for resuming
        /// (``CourierCore/DownloadTarget/Options/resumable``): here and
        /// now, even in a cancelled task — an `unlink` or a `rename`, no more.
        func discard() {
            download.discard()
        }
    }
#endif
