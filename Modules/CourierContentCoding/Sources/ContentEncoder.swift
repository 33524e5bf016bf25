import CZlib
package import CourierCore

/// Applies a content coding to a request body (RFC 9110 §8.4): `gzip`, or
/// `deflate` as RFC 9110 defines it (the zlib format, RFC 1950).
package enum ContentEncoder {
    /// A coding this encoder applies.
    package enum Coding: String, Sendable {
        case gzip
        case deflate

        /// zlib's window bits for the coding's wrapper.
        var windowBits: Int32 { self == .gzip ? 15 + 16 : 15 }
    }

    /// `bytes` in `coding`, compressed at zlib's default level.
    /// - Throws: ``TransportError/Code/other`` when zlib cannot start or fails.
    package static func encode(_ bytes: [UInt8], as coding: Coding) throws(TransportError) -> [UInt8] {
        var stream = z_stream()
        guard courier_deflate_init(&stream, Z_DEFAULT_COMPRESSION, coding.windowBits) == Z_OK else {
            throw TransportError(.other, "zlib could not start a \(coding.rawValue) encoder")
        }
        defer { deflateEnd(&stream) }
        // deflateBound: the most the whole input can become, in one pass.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 32)
        let status = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out -> Int32 in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else {
            throw TransportError(
                .other, "zlib could not \(coding.rawValue)-encode the body (status \(status))")
        }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }
}
