#if AsyncHTTPClient
    import CourierContentCoding
    @_spi(Transport) import CourierCore
    import HTTPTypes
    import NIOCore

    /// A response body's content codings undone chunk by chunk, by the
    /// decoder `CurlTransport` uses (async-http-client's own is off: it reads
    /// only the first coding of a list and no raw `deflate`). A body in a
    /// coding it does not know passes through as it came.
    struct AHCBodyDecoding {
        private let decoder: ContentDecoder?
        /// Codings stacked too deep to undo (``ContentDecoder/refusal(for:)``).
        private let refusal: TransportError?
        /// Decoded bytes so far.
        private(set) var count: Int64 = 0

        /// A decoding of `head`'s body; `expansion` is a download's bound on
        /// decoded bytes per coded byte
        /// (``/CourierCore/TransportOptions/downloadExpansionLimit``).
        init(_ head: HTTPResponse, expansion: DownloadExpansionLimit? = nil) {
            decoder = ContentDecoder.make(
                for: head.headerFields[values: .contentEncoding], expansion: expansion)
            refusal = ContentDecoder.refusal(for: head.headerFields[values: .contentEncoding])
        }

        /// `chunk` decoded — `chunk` itself when the body has no coding —
        /// stopping with ``/CourierCore/TransportError/Code/bodyTooLarge``
        /// once the decoded bytes pass `limit`, before a bomb is inflated
        /// further.
        mutating func decode(_ chunk: ByteBuffer, limit: Int64?, what: String) throws(TransportError)
            -> ByteBuffer
        {
            if let refusal { throw refusal }
            guard let decoder else {
                count += Int64(chunk.readableBytes)
                if let limit, count > limit { throw Self.tooLarge(what, limit) }
                return chunk
            }
            var output = ByteBuffer()
            var total = count
            let decoded = chunk.withUnsafeReadableBytes { bytes -> Result<Bool, TransportError> in
                do throws(TransportError) {
                    return .success(
                        try decoder.decode(bytes) { piece in
                            total += Int64(piece.count)
                            if let limit, total > limit { return false }
                            output.writeBytes(piece)
                            return true
                        })
                } catch {
                    return .failure(error)
                }
            }
            guard try decoded.get() else { throw Self.tooLarge(what, limit ?? 0) }
            count = total
            return output
        }

        /// Checks that every coded stream ended with the body.
        func finish() throws(TransportError) {
            try decoder?.finish()
        }

        private static func tooLarge(_ what: String, _ limit: Int64) -> TransportError {
            TransportError(.bodyTooLarge, "the \(what) exceeds \(limit) bytes")
        }
    }
#endif
