import CZlib
import CourierCore

/// One zlib inflate stream: `gzip` or `deflate`.
final class Inflater: DecodingStage {
    let kind: ContentCoding
    private let stream: UnsafeMutablePointer<z_stream>
    private let output: UnsafeMutableRawBufferPointer
    /// Whether any input arrived.
    private(set) var started = false
    /// Whether the coded stream reached its end; input after it is ignored,
    /// as browsers and libcurl ignore trailing bytes.
    private(set) var ended = false
    /// Whether a `deflate` body turned out raw (no zlib header).
    private var retriedRaw = false

    init?(_ kind: ContentCoding) {
        self.kind = kind
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        output = .allocate(byteCount: 64 << 10, alignment: 1)
        // 15 + 16: a gzip wrapper; 15: a zlib wrapper.
        guard courier_inflate_init(stream, kind == .gzip ? 15 + 16 : 15) == Z_OK else {
            stream.deallocate()
            output.deallocate()
            return nil
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        output.deallocate()
    }

    func decode(
        _ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) throws(TransportError) -> Bool
    ) throws(TransportError) -> Bool {
        guard !ended, let base = input.baseAddress, !input.isEmpty else { return true }
        let isFirstInput = !started
        started = true
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        while true {
            stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(output.count)
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            let produced = output.count - Int(stream.pointee.avail_out)
            if status == Z_DATA_ERROR, kind == .deflate, isFirstInput, !retriedRaw, produced == 0,
                stream.pointee.total_out == 0
            {
                // Some servers send `deflate` without its zlib header: start
                // again over the same bytes as a raw stream.
                retriedRaw = true
                inflateEnd(stream)
                stream.initialize(to: z_stream())
                guard courier_inflate_init(stream, -15) == Z_OK else {
                    throw failure("no memory for inflate")
                }
                started = false
                return try decode(input, into: sink)
            }
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                let detail = stream.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                throw failure(detail)
            }
            if produced > 0, let start = output.baseAddress {
                guard try sink(UnsafeRawBufferPointer(start: start, count: produced)) else { return false }
            }
            if status == Z_STREAM_END {
                ended = true
                return true
            }
            // Everything consumed and nothing more to give: wait for input.
            if stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return true }
            if status == Z_BUF_ERROR && produced == 0 { return true }
        }
    }

    private func failure(_ detail: String) -> TransportError {
        TransportError(.protocolError, "the body is not valid \(kind.rawValue): \(detail)")
    }
}
