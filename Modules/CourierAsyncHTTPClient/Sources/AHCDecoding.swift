#if AsyncHTTPClient
    import CourierContentCoding
    import CourierCore
    import HTTPTypes
    import NIOCore

    /// A response body's content codings undone chunk by chunk, by the
    /// decoder `CurlTransport` uses (async-http-client's own is off: it reads
    /// only the first coding of a list and no raw `deflate`). A body in a
    /// coding it does not know passes through as it came.
    struct AHCBodyDecoding {
        private let decoder: ContentDecoder?
        /// Decoded bytes so far.
        private(set) var count: Int64 = 0

        init(_ head: HTTPResponse) {
            decoder = ContentDecoder.make(for: head.headerFields[values: .contentEncoding])
        }

        /// `chunk`'s bytes, decoded, stopping with ``/CourierCore/TransportError/Code/bodyTooLarge``
        /// once the body's decoded bytes pass `limit` — before a bomb is
        /// inflated further.
        mutating func decode(_ chunk: ByteBuffer, limit: Int64?, what: String) throws(TransportError)
            -> [UInt8]
        {
            var output: [UInt8] = []
            guard let decoder else {
                output = Array(chunk.readableBytesView)
                try count(output.count, limit: limit, what: what)
                return output
            }
            var total = count
            let decoded = chunk.withUnsafeReadableBytes { bytes -> Result<Bool, TransportError> in
                do throws(TransportError) {
                    return .success(
                        try decoder.decode(bytes) { piece in
                            total += Int64(piece.count)
                            if let limit, total > limit { return false }
                            output.append(contentsOf: piece)
                            return true
                        })
                } catch {
                    return .failure(error)
                }
            }
            guard try decoded.get() else { throw Self.tooLarge(what, limit) }
            count = total
            return output
        }

        /// Checks that every coded stream ended with the body.
        func finish() throws(TransportError) {
            try decoder?.finish()
        }

        private mutating func count(_ added: Int, limit: Int64?, what: String) throws(TransportError) {
            count += Int64(added)
            if let limit, count > limit { throw Self.tooLarge(what, limit) }
        }

        private static func tooLarge(_ what: String, _ limit: Int64?) -> TransportError {
            TransportError(.bodyTooLarge, "the \(what) exceeds \(limit ?? 0) bytes")
        }
    }
#endif
