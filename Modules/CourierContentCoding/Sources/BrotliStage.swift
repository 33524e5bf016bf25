import CBrotli
import CourierCore

/// One Brotli stream (RFC 7932): the `br` coding.
final class BrotliStage: DecodingStage {
    let kind = ContentCoding.brotli
    private(set) var started = false
    private(set) var ended = false
    private let state: OpaquePointer
    private let output: UnsafeMutableRawBufferPointer

    init?() {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else { return nil }
        self.state = state
        output = .allocate(byteCount: 64 << 10, alignment: 1)
    }

    deinit {
        BrotliDecoderDestroyInstance(state)
        output.deallocate()
    }

    func decode(
        _ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) throws(TransportError) -> Bool
    ) throws(TransportError) -> Bool {
        guard !ended, let base = input.baseAddress, !input.isEmpty else { return true }
        started = true
        var availableIn = input.count
        var nextIn: UnsafePointer<UInt8>? = UnsafePointer(base.assumingMemoryBound(to: UInt8.self))
        while true {
            var availableOut = output.count
            var nextOut = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
            let result = BrotliDecoderDecompressStream(
                state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
            if result == BROTLI_DECODER_RESULT_ERROR {
                let reason = BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state)).map {
                    String(cString: $0)
                }
                throw TransportError(.protocolError, "the body is not valid br: \(reason ?? "an error")")
            }
            let produced = output.count - availableOut
            if produced > 0, let start = output.baseAddress {
                guard try sink(UnsafeRawBufferPointer(start: start, count: produced)) else { return false }
            }
            if result == BROTLI_DECODER_RESULT_SUCCESS {
                ended = true
                return true
            }
            if result == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT { return true }
            // BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: go round with an empty buffer.
        }
    }
}
