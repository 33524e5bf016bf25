@_spi(Transport) package import CourierCore

/// Undoes a response body's content codings (RFC 9110 §8.4) as the bytes
/// arrive: `gzip` (and `x-gzip`), `deflate` (zlib-wrapped, or raw as some
/// servers send it), `br` (RFC 7932), `zstd` (RFC 8878, its window bounded
/// at 8 MiB as RFC 9659 asks of HTTP) and `identity`, applied in any stack.
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
    private let stages: [any DecodingStage]
    /// The bound on decoded bytes per coded byte, for a download.
    private let expansion: DownloadExpansionLimit?
    /// Coded bytes read so far.
    package private(set) var codedBytes: Int64 = 0
    /// Decoded bytes made so far.
    package private(set) var decodedBytes: Int64 = 0

    private init(stages: [any DecodingStage], expansion: DownloadExpansionLimit?) {
        self.stages = stages
        self.expansion = expansion
    }

    /// The `Accept-Encoding` a transport that decodes with this sends when
    /// the request has none: every coding ``make(for:)`` undoes.
    package static let acceptEncoding = "gzip, deflate, br, zstd"

    /// A decoder for a response whose `Content-Encoding` field values are
    /// `values`; `nil` when the body is to be handed over as it came: no
    /// coding but `identity`, or a coding this decoder does not know.
    /// `expansion` bounds the decoded bytes by the coded ones: a download's
    /// (``/CourierCore/TransportOptions/downloadExpansionLimit``).
    package static func make(
        for values: [String], expansion: DownloadExpansionLimit? = nil
    ) -> ContentDecoder? {
        guard let kinds = codings(values), !kinds.isEmpty, kinds.count <= maxCodings else { return nil }
        var stages: [any DecodingStage] = []
        for kind in kinds.reversed() {
            let stage: (any DecodingStage)? =
                switch kind {
                case .gzip, .deflate: Inflater(kind)
                case .brotli: BrotliStage()
                case .zstd: ZstdStage()
                }
            guard let stage else { return nil }
            stages.append(stage)
        }
        return ContentDecoder(stages: stages, expansion: expansion)
    }

    /// The most stacked codings undone: more than any server has a reason
    /// for, and a chain an attacker would choose the length of (libcurl's
    /// CVE-2023-23916 and its limit of five).
    package static let maxCodings = 5

    /// The typed error for a response whose known codings are stacked more
    /// than ``maxCodings`` deep (curl's rule: the transfer fails rather than
    /// hand over bytes coded six times); `nil` for any other response, one
    /// with an unknown coding included (handed over as it came).
    package static func refusal(for values: [String]) -> TransportError? {
        guard let kinds = codings(values), kinds.count > maxCodings else { return nil }
        return TransportError(
            .protocolError,
            "the response stacks \(kinds.count) content codings; at most \(maxCodings) are undone")
    }

    /// The known codings `values` name, in order; `nil` when one is unknown.
    private static func codings(_ values: [String]) -> [ContentCoding]? {
        var kinds: [ContentCoding] = []
        for token in values.flatMap({ $0.split(separator: ",") }) {
            switch String(token).trimmingSpaces.lowercased() {
            case "identity", "": continue
            case "gzip", "x-gzip": kinds.append(.gzip)
            case "deflate": kinds.append(.deflate)
            case "br": kinds.append(.brotli)
            case "zstd": kinds.append(.zstd)
            default: return nil
            }
        }
        return kinds
    }

    /// Decodes `input`, handing each decoded piece to `sink` as it is made.
    /// - Returns: false when `sink` asked to stop (it returned false).
    /// - Throws: ``TransportError/Code/protocolError`` for bytes that are
    ///   not what the coding says; ``TransportError/Code/bodyTooLarge`` once
    ///   the decoded bytes pass the expansion bound.
    package func decode(
        _ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) -> Bool
    ) throws(TransportError) -> Bool {
        codedBytes += Int64(input.count)
        return try decode(input, stage: 0, into: sink)
    }

    private func decode(
        _ input: UnsafeRawBufferPointer, stage index: Int, into sink: (UnsafeRawBufferPointer) -> Bool
    ) throws(TransportError) -> Bool {
        guard index < stages.count else {
            decodedBytes += Int64(input.count)
            if let failure = expansion?.failure(decoded: decodedBytes, coded: codedBytes) { throw failure }
            return sink(input)
        }
        return try stages[index].decode(input) { output throws(TransportError) in
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

/// A coding ``ContentDecoder`` undoes.
enum ContentCoding: String {
    case gzip, deflate
    case brotli = "br"
    case zstd
}

/// One coded stream being undone, a stage of a ``ContentDecoder``.
protocol DecodingStage: AnyObject {
    /// The coding, for errors.
    var kind: ContentCoding { get }
    /// Whether any input arrived.
    var started: Bool { get }
    /// Whether the coded stream reached its end; input after it is ignored,
    /// as browsers and libcurl ignore trailing bytes.
    var ended: Bool { get }
    /// Decodes `input`, handing each piece of output to `sink`.
    /// - Returns: false when `sink` asked to stop.
    func decode(
        _ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) throws(TransportError) -> Bool
    ) throws(TransportError) -> Bool
}
