import Foundation

/// The answer the server planned for a journaled exchange: what a HAR export
/// and the journal's readers show beside the request. A fault may have cut
/// what actually went out (``JournalEntry/fault``, ``JournalEntry/bytesWritten``).
public struct RecordedResponse: Sendable, Hashable, Encodable {
    enum CodingKeys: String, CodingKey { case headers, body, bodyBase64, bodySize }

    /// The most body bytes kept per entry: a journal of 10,000 entries stays
    /// within about 160 MiB however large the bodies.
    public static let keptBodyBytes = 16 * 1024

    /// The header lines, as the plan writes them (framing included).
    public var headers: [RecordedRequest.HeaderLine]
    /// The body's first bytes, at most ``keptBodyBytes``; empty for a streamed body.
    public var body: [UInt8]
    /// The whole body's size in bytes; `nil` for a streamed body (event stream, NDJSON).
    public var bodySize: Int?

    /// A plain answer: its headers as `ResponsePlan.make` writes them, and its body.
    init(planned response: StubResponse) {
        var lines = response.headers.map { RecordedRequest.HeaderLine(name: $0.name, value: $0.value) }
        lines.append(.init(name: "Content-Length", value: "\(response.body.count)"))
        headers = lines
        // A small body is kept as it is: a stub's shares its storage, no copy per request.
        body =
            response.body.count <= Self.keptBodyBytes
            ? response.body : Array(response.body.prefix(Self.keptBodyBytes))
        bodySize = response.body.count
    }

    /// A streamed answer: its headers, no body kept.
    init(streamed response: StubResponse, contentType: String) {
        var lines = response.headers.map { RecordedRequest.HeaderLine(name: $0.name, value: $0.value) }
        if !lines.contains(where: { $0.name.lowercased() == "content-type" }) {
            lines.append(.init(name: "Content-Type", value: contentType))
        }
        lines.append(.init(name: "Transfer-Encoding", value: "chunked"))
        headers = lines
        body = []
        bodySize = nil
    }

    /// The first value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    /// Encodes the body as text when it is UTF-8, otherwise as base64.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(headers, forKey: .headers)
        if let text = String(validating: body, as: UTF8.self) {
            try container.encode(text, forKey: .body)
        } else {
            try container.encode(Data(body).base64EncodedString(), forKey: .bodyBase64)
        }
        try container.encodeIfPresent(bodySize, forKey: .bodySize)
    }
}
