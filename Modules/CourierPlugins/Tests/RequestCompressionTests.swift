import CourierContentCoding
import CourierCore
import CourierPlugins
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// `RequestCompression` on its own: which bodies it compresses, that the
/// bytes decode back, and that a retry sends what the first attempt did.
struct RequestCompressionTests {
    static let body = Array(
        String(repeating: #"{"event":"page-view","path":"/products/7"},"#, count: 100).utf8)

    /// The bytes `coding` decodes `encoded` to, with the decoder the transports use.
    static func decoded(_ encoded: [UInt8], _ coding: String) throws -> [UInt8] {
        let decoder = try #require(ContentDecoder.make(for: [coding]))
        var plain: [UInt8] = []
        _ = try encoded.withUnsafeBytes { bytes in
            try decoder.decode(bytes) { piece in
                plain += piece
                return true
            }
        }
        return plain
    }

    @Test(arguments: [RequestCompression.Coding.gzip, .deflate])
    func aRetrySendsTheSameCompressedBody(coding: RequestCompression.Coding) async throws {
        let transport = RecordingTransport(StubTransport.sequence([.status(503), .status(204)]))
        let client = APIClient(
            configuration: .init(
                transport: transport, retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none),
                clock: TestClock()))
        let upload = Endpoint<RawResponse>(
            .put("events"), on: Node("api", baseURL: "https://api.example.com"),
            content: .raw(Self.body, contentType: "application/json"))
        _ = try await client.send(upload.compressingRequestBody(coding))
        let sent = transport.records
        try #require(sent.count == 2)
        for record in sent {
            #expect(record.head.headerFields[.contentEncoding] == coding.rawValue)
        }
        let first = try #require(sent[0].body)
        let second = try #require(sent[1].body)
        #expect(first == second)
        #expect(first.count < Self.body.count / 4)
        #expect(try Self.decoded(first, coding.rawValue) == Self.body)
    }

    @Test func bodiesItCannotOrShouldNotCompressGoAsTheyAre() async throws {
        let transport = RecordingTransport(StubTransport.immediate(.status(204)))
        let client = APIClient(configuration: .init(transport: transport))
        let node = Node("api", baseURL: "https://api.example.com")
        // Already encoded by its maker.
        var encoded = Endpoint<RawResponse>(
            .post("a"), on: node, content: .raw(Self.body, contentType: "application/json"))
        encoded.headers[.contentEncoding] = "br"
        _ = try await client.send(encoded.compressingRequestBody())
        // Below the minimum size.
        _ = try await client.send(
            Endpoint<RawResponse>(
                .post("b"), on: node, content: .raw(Array("tiny".utf8), contentType: "text/plain")
            ).compressingRequestBody())
        // No body at all.
        _ = try await client.send(Endpoint<RawResponse>(.get("c"), on: node).compressingRequestBody())
        let encodings = transport.records.map { $0.head.headerFields[.contentEncoding] }
        #expect(encodings == ["br", nil, nil])
        #expect(transport.records[0].body == Self.body)
    }
}
