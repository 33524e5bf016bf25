import CompressNIO
import CourierCore
import CourierMockServer
import CourierPlugins
import Foundation
import NIOCore
import Testing

/// A compressed request body as the server received it, over every
/// transport: the raw bytes of the journal are the coding's, their length
/// is `Content-Length`, and undone they are the body the endpoint built.
struct RequestCompressionTests {
    static let stubs = #"""
        {"mappings": [
          {"id": "upload", "request": {"method": "POST", "urlPath": "/events"}, "response": {"status": 204}}
        ]}
        """#

    /// A batch of events, a few KiB of repetitive JSON.
    static let batch = Array(
        ("["
            + (0..<100).map { #"{"event":"page-view","n":\#($0),"path":"/products/7"}"# }.joined(
                separator: ",")
            + "]").utf8)

    @Test(arguments: TransportKind.allCases, [RequestCompression.Coding.gzip, .deflate])
    func theServerReceivesTheBodyCompressed(kind: TransportKind, coding: RequestCompression.Coding)
        async throws
    {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let node = Node("mock", baseURL: server.baseURL)
            let client = APIClient(configuration: .init(transport: kind.transport, timeout: hangGuard))
            let upload = Endpoint<RawResponse>(
                .post("events"), on: node, content: .raw(Self.batch, contentType: "application/json"))
            let plain = try await client.send(upload.compressingRequestBody(coding, minimumSize: 1))
            #expect(plain.statusCode == 204)
            _ = try await client.send(upload)
            let entries = server.journal.entries(stub: "upload")
            try #require(entries.count == 2)
            let (compressed, original) = (entries[0].request, entries[1].request)
            #expect(compressed.header("Content-Encoding") == coding.rawValue)
            #expect(original.header("Content-Encoding") == nil)
            #expect(compressed.header("Content-Length") == "\(compressed.body.count)")
            #expect(
                compressed.body.count * 4 < original.body.count,
                "\(compressed.body.count) of \(original.body.count)")
            var buffer = ByteBuffer(bytes: compressed.body)
            let undone = try buffer.decompress(with: coding == .gzip ? .gzip() : .zlib())
            #expect(Array(buffer: undone) == original.body)
            #expect(original.body == Self.batch)
        }
    }

    @Test func aSmallBodyIsSentAsItIs() async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let client = APIClient(
                configuration: .init(transport: TransportKind.curl.transport, timeout: hangGuard))
            let upload = Endpoint<RawResponse>(
                .post("events"), on: Node("mock", baseURL: server.baseURL),
                content: .raw(Array(#"{"n":1}"#.utf8), contentType: "application/json"))
            _ = try await client.send(upload.compressingRequestBody())
            let sent = server.journal.entries(stub: "upload").first?.request
            #expect(sent?.header("Content-Encoding") == nil)
            #expect(sent?.bodyText == #"{"n":1}"#)
        }
    }
}
