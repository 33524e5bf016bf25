import Foundation

/// The answer the server planned for a journaled exchange: what a HAR export
/// and the journal's readers show beside the request. A fault may have cut
/// what actually went out (``JournalEntry/fault``, ``JournalEntry/bytesWritten``).
///
/// Kept as the plan had it — the stub's header list and body are shared,
/// not copied — and turned into header lines only when read, so that
/// journaling costs a request next to nothing.
public struct RecordedResponse: Sendable, Encodable {
    enum CodingKeys: String, CodingKey { case headers, body, bodyBase64, bodySize }

    /// The most body bytes kept per entry: a journal of 10,000 entries stays
    /// within about 160 MiB however large the bodies.
    public static let keptBodyBytes = 16 * 1024

    private let planned: [(name: String, value: String)]
    /// The framing field the plan adds, or for a stream its content type and framing.
    private let added: [(name: String, value: String)]
    private let kept: [UInt8]
    /// The whole body's size in bytes; `nil` for a streamed body (event stream, NDJSON).
    public let bodySize: Int?

    /// The header lines, as the plan writes them (framing included).
    public var headers: [RecordedRequest.HeaderLine] {
        (planned + added).map { RecordedRequest.HeaderLine(name: $0.name, value: $0.value) }
    }

    /// The body's first bytes, at most ``keptBodyBytes``; empty for a streamed body.
    public var body: [UInt8] { kept }

    /// A plain answer: its headers as `ResponsePlan.make` writes them, and its body.
    init(planned response: StubResponse) {
        planned = response.headers
        added = [("Content-Length", String(response.body.count))]
        // A small body is kept as it is: a stub's shares its storage, no copy per request.
        kept =
            response.body.count <= Self.keptBodyBytes
            ? response.body : Array(response.body.prefix(Self.keptBodyBytes))
        bodySize = response.body.count
    }

    /// A streamed answer: its headers, no body kept.
    init(streamed response: StubResponse, contentType: String) {
        planned = response.headers
        let named = response.headers.contains { HeaderName.equal($0.name, "content-type") }
        added = (named ? [] : [("Content-Type", contentType)]) + [("Transfer-Encoding", "chunked")]
        kept = []
        bodySize = nil
    }

    /// The first value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        (planned + added).first { HeaderName.equal($0.name, name) }?.value
    }

    /// Set to `true` in an encoder's `userInfo` to include the body; the
    /// journal's listing leaves it out (a whole journal with bodies is
    /// megabytes to encode on the server's event loop).
    public static let includeBodyKey: CodingUserInfoKey = {
        guard let key = CodingUserInfoKey(rawValue: "courier.includeResponseBodies") else {
            preconditionFailure("a constant, valid key")
        }
        return key
    }()

    /// Encodes the body as text when it is UTF-8, otherwise as base64 —
    /// only when the encoder asks for bodies (``includeBodyKey``).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(headers, forKey: .headers)
        try container.encodeIfPresent(bodySize, forKey: .bodySize)
        guard encoder.userInfo[Self.includeBodyKey] as? Bool == true else { return }
        if let text = String(validating: kept, as: UTF8.self) {
            try container.encode(text, forKey: .body)
        } else {
            try container.encode(Data(kept).base64EncodedString(), forKey: .bodyBase64)
        }
    }
}
