@_spi(Transport) import CourierCore
import CourierMockServer
import CourierTransfers
import Foundation
import HTTPTypes
import Testing

/// Resumable uploads (draft-ietf-httpbis-resumable-upload) against
/// courier-mock's upload resources, over every transport: an upload whose
/// connection is reset twice mid-body — once the server holds 30 %, then
/// 70 % of it — ends with every byte, from memory and from a file. CurlTransport
/// learns the resource from the `104`; the others create it first. What is
/// asserted comes from the server: its digest of what it assembled, and its
/// journal of the requests that reached it (the offsets asked, the rest sent).
struct ResumableUploadTests {
    static let size = (1 << 20) / LargeTransferTests.scale
    static let cuts = [size * 3 / 10, size * 7 / 10]

    static func body() -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 10) } }

    enum Source: String, CaseIterable, Sendable {
        case memory, file
    }

    /// Not over URLSession on Linux: FoundationNetworking does not report a
    /// reset mid-upload until a timer fires (the call's idle timeout), so
    /// there the cut is found by the wall clock; below, it speaks the
    /// protocol without a cut.
    @Test(arguments: TransportKind.among(.curl, .curlPollLoop, .asyncHTTPClient), Source.allCases)
    func anUploadCutTwiceEndsWithEveryByte(kind: TransportKind, source: Source) async throws {
        let bytes = Self.body()
        var hasher = SHA256Digest()
        hasher.update(bytes)
        let digest = hasher.finalizeHex()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("resumable-\(UUID()).bin")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await withMockServer { server async throws in
            let client = APIClient(configuration: .init(transport: kind.transport, timeout: hangGuard))
            let content: Content =
                source == .memory
                ? .raw(bytes, contentType: "application/octet-stream")
                : .file(file, contentType: "application/octet-stream")
            let endpoint = Endpoint<RawResponse>(
                .post("resumable"), on: Node("mock", baseURL: server.baseURL),
                query: ["cutAt": .string(Self.cuts.map(String.init).joined(separator: ","))], content: content
            ).resumable(ResumableUpload(maxResumes: 2))
            let response = try await client.send(endpoint)
            let echo =
                try JSONSerialization.jsonObject(with: Data(response.body.bytes ?? [])) as? [String: Any]
            #expect(echo?["bytes"] as? Int == Self.size, "\(kind) \(source)")
            #expect(echo?["sha256"] as? String == digest, "\(kind) \(source)")

            // The server's record: two offsets asked after the two cuts, each
            // the cut's, and the last part sent from the second.
            let entries = server.journal.entries
            let offsets = entries.filter { $0.request.method == "HEAD" }
            #expect(
                offsets.count == 2, "\(kind): \(entries.map { "\($0.request.method) \($0.request.path)" })")
            #expect(offsets.allSatisfy { $0.status == 204 })
            let last = try #require(entries.last)
            #expect(last.request.method == "PATCH")
            let from = try #require(last.request.header("Upload-Offset").flatMap { Int($0) })
            #expect(from == Self.cuts[1], "\(kind)")
            #expect(last.request.header("Upload-Complete") == "?1")
            #expect(last.request.header("Content-Type") == "application/partial-upload")
            #expect(last.request.body == Array(bytes[from...]))
            // How the resource was learnt: from the 104, or made first.
            let creations = entries.filter { $0.request.method == "POST" }
            if kind.isCurl {
                #expect(creations.isEmpty, "the creation carried the body and was cut")
            } else {
                #expect(creations.map { $0.request.header("Upload-Complete") } == ["?0"])
                #expect(creations.first?.status == 201)
            }
        }
    }

    /// URLSession (and every transport) creates the upload first, then
    /// sends the body to the resource, when it cannot report the `104`.
    @Test(arguments: TransportKind.among(.urlSession, .asyncHTTPClient))
    func anUploadThatIsNotCutGoesToItsResource(kind: TransportKind) async throws {
        let bytes = Self.body()
        try await withMockServer { server async throws in
            let client = APIClient(configuration: .init(transport: kind.transport, timeout: hangGuard))
            let endpoint = Endpoint<RawResponse>(
                .post("resumable"), on: Node("mock", baseURL: server.baseURL),
                content: .raw(bytes, contentType: "application/octet-stream")
            ).resumable()
            let response = try await client.send(endpoint)
            #expect(response.statusCode == 200)
            let entries = server.journal.entries
            #expect(entries.map(\.request.method) == ["POST", "PATCH"], "\(kind)")
            #expect(entries.first?.request.header("Upload-Complete") == "?0")
            #expect(entries.first?.request.header("Upload-Length") == String(Self.size))
            #expect(entries.last?.request.header("Upload-Offset") == "0")
            #expect(entries.last?.request.body == bytes)
        }
    }

    /// The resource's answers as the draft gives them, over one transport
    /// (the server's side, not the clients'): a wrong offset is a `409`
    /// problem, the end is final, a removed upload is gone.
    @Test func theServerSideAnswersAsTheDraftSays() async throws {
        try await withMockServer { server async throws in
            let transport = TransportKind.curl.transport
            func send(
                _ method: HTTPRequest.Method, _ path: String, _ fields: HTTPFields = [:],
                _ body: [UInt8]? = nil
            )
                async throws -> RawResponse
            {
                try await transport.send(
                    request(
                        server, path, method: method, headers: fields,
                        body: body.map { RequestBody(bytes: $0) }),
                    options: .init(timeout: hangGuard))
            }
            let created = try await send(
                .post, "/resumable", [.init("Upload-Complete")!: "?0", .init("Upload-Length")!: "3"], [])
            #expect(created.statusCode == 201)
            let location = try #require(created.head.headerFields[.location])
            let partial: HTTPFields = [
                .init("Upload-Offset")!: "5", .init("Upload-Complete")!: "?1",
                .contentType: "application/partial-upload",
            ]
            let mismatched = try await send(.patch, location, partial, Array("abc".utf8))
            #expect(mismatched.statusCode == 409)
            #expect(mismatched.bodyText.contains("mismatching-upload-offset"))
            let offset = try await send(.head, location)
            #expect(offset.statusCode == 204)
            #expect(offset.head.headerFields[.init("Upload-Offset")!] == "0")
            #expect(offset.head.headerFields[.init("Upload-Length")!] == "3")
            #expect(offset.head.headerFields[.cacheControl] == "no-store")
            var fromZero = partial
            fromZero[.init("Upload-Offset")!] = "0"
            let done = try await send(.patch, location, fromZero, Array("abc".utf8))
            #expect(done.statusCode == 200)
            #expect(done.bodyText.contains("\"bytes\":3"), "\(done.bodyText)")
            let again = try await send(.patch, location, fromZero, Array("abc".utf8))
            #expect(again.statusCode == 400)
            #expect(again.bodyText.contains("completed-upload"))
            #expect(try await send(.delete, location).statusCode == 204)
            #expect(try await send(.head, location).statusCode == 404)
        }
    }
}

extension RawResponse {
    /// The body as UTF-8 text ("" when there is none).
    fileprivate var bodyText: String { String(decoding: body.bytes ?? [], as: UTF8.self) }
}
