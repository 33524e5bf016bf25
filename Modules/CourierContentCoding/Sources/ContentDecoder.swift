import CZlib
package import CourierCore

/// Undoes a response body's content codings (RFC 9110 §8.4) as the bytes
/// arrive: `gzip` (and `x-gzip`), `deflate` (zlib-wrapped, or raw as some
/// servers send it) and `identity`, applied in any stack.
///
/// `CurlTransport` and `AsyncHTTPClientTransport` decode bodies with it
/// rather than with their libraries' decoders: libcurl fails the whole
/// transfer — no status, no headers, no body — when a response names a
/// coding it does not know, and async-http-client's decoder reads only the
/// first coding of a list and no raw `deflate`. RFC 9110 §8.4 leaves an
/// unknown coding to the recipient; a browser hands such a body over as it
/// came, its `Content-Encoding` intact, so that the caller can see the
/// status and decide. ``make(for:)`` returns `nil` then: the bytes pass
/// through.
package final class ContentDecoder {
    /// The inflaters, in the order the bytes pass through them (the last
    /// coding applied is undone first).
    private let stages: [Inflater]

    private init(stages: [Inflater]) {
        self.stages = stages
    }

    /// A decoder for a response whose `Content-Encoding` field values are
    /// `values`; `nil` when the body is to be handed over as it came: no
    /// coding but `identity`, or a coding this decoder does not know.
    package static func make(for values: [String]) -> ContentDecoder? {
        var kinds: [Inflater.Kind] = []
        for token in values.flatMap({ $0.split(separator: ",") }) {
            switch String(token).trimmingSpaces.lowercased() {
            case "identity", "": continue
            case "gzip", "x-gzip": kinds.append(.gzip)
            case "deflate": kinds.append(.deflate)
            default: return nil
            }
        }
        // More stacked codings than any server has a reason for: hand the
        // bytes over rather than build a chain an attacker chose the length
        // of (libcurl's CVE-2023-23916).
        guard !kinds.isEmpty, kinds.count <= 5 else { return nil }
        var stages: [Inflater] = []
        for kind in kinds.reversed() {
            guard let stage = Inflater(kind) else { return nil }
            stages.append(stage)
        }
        return ContentDecoder(stages: stages)
    }

    /// Decodes `input`, handing each decoded piece to `sink` as it is made.
    /// - Returns: false when `sink` asked to stop (it returned false).
    /// - Throws: ``TransportError/Code/protocolError`` for bytes that are
    ///   not what the coding says.
    package func decode(
        _ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) -> Bool
    ) throws(TransportError) -> Bool {
        try decode(input, stage: 0, into: sink)
    }

    private func decode(
        _ input: UnsafeRawBufferPointer, stage index: Int, into sink: (UnsafeRawBufferPointer) -> Bool
    ) throws(TransportError) -> Bool {
        guard index < stages.count else { return sink(input) }
        return try stages[index].inflate(input) { output throws(TransportError) in
            try decode(output, stage: index + 1, into: sink)
        }
    }

    /// Checks, once the transfer has ended, that every coded stream ended
    /// too: a body cut inside its gzip stream is incomplete however whole
    /// its framing looked.
    package func finish() throws(TransportError) {
        for stage in stages where stage.started && !stage.ended {
            throw TransportError(
                .protocolError, "the \(stage.kind.rawValue)-coded body ends before its coded stream does")
        }
    }
}

/// One zlib inflate stream.
private final class Inflater {
    enum Kind: String {
        case gzip, deflate
    }

    let kind: Kind
    private let stream: UnsafeMutablePointer<z_stream>
    private let output: UnsafeMutableRawBufferPointer
    /// Whether any input arrived.
    private(set) var started = false
    /// Whether the coded stream reached its end; input after it is ignored,
    /// as browsers and libcurl ignore trailing bytes.
    private(set) var ended = false
    /// Whether a `deflate` body turned out raw (no zlib header).
    private var retriedRaw = false

    init?(_ kind: Kind) {
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

    /// Inflates `input`, handing each piece of output to `sink`.
    func inflate(
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
                return try inflate(input, into: sink)
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
