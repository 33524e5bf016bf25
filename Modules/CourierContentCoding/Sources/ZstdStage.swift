import CZstd
import CourierCore

/// Zstandard frames (RFC 8878): the `zstd` coding. The window is bounded at
/// 8 MiB (RFC 9659 §3: HTTP decoders need not accept more), so a frame
/// cannot make the client reserve gigabytes; consecutive frames are one body.
final class ZstdStage: DecodingStage {
    let kind = ContentCoding.zstd
    private(set) var started = false
    /// Whether the latest frame is complete (more frames may follow).
    private(set) var ended = false
    private let stream: OpaquePointer
    private let output: UnsafeMutableRawBufferPointer

    init?() {
        guard let stream = ZSTD_createDStream() else { return nil }
        guard ZSTD_isError(ZSTD_initDStream(stream)) == 0,
            ZSTD_isError(ZSTD_DCtx_setParameter(stream, ZSTD_d_windowLogMax, 23)) == 0
        else {
            ZSTD_freeDStream(stream)
            return nil
        }
        self.stream = stream
        output = .allocate(byteCount: 64 << 10, alignment: 1)
    }

    deinit {
        ZSTD_freeDStream(stream)
        output.deallocate()
    }

    func decode(
        _ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) throws(TransportError) -> Bool
    ) throws(TransportError) -> Bool {
        guard let base = input.baseAddress, !input.isEmpty else { return true }
        started = true
        var source = ZSTD_inBuffer(src: base, size: input.count, pos: 0)
        while true {
            var target = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
            let status = ZSTD_decompressStream(stream, &target, &source)
            if ZSTD_isError(status) != 0 {
                let reason = ZSTD_getErrorName(status).map { String(cString: $0) } ?? "an error"
                throw TransportError(.protocolError, "the body is not valid zstd: \(reason)")
            }
            ended = status == 0
            if target.pos > 0, let start = output.baseAddress {
                guard try sink(UnsafeRawBufferPointer(start: start, count: target.pos)) else { return false }
            }
            // All input taken and the output not full: nothing more until more input.
            if source.pos == source.size && target.pos < target.size { return true }
        }
    }
}
