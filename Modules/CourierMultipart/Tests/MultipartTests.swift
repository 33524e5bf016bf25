import CourierCore
import CourierMultipart
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

struct MultipartTests {
    @Test func framingMatchesRFC7578() async throws {
        var form = MultipartForm(boundary: "XyZ")
        form.append(field: "title", value: "Hi \"there\"")
        form.append(
            data: [0xFF, 0x00], name: "blob", filename: "b.bin", contentType: "application/octet-stream")
        let body = try form.makeBody()
        let text = String(decoding: try await body.collect(), as: UTF8.self)
        let expected =
            "--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHi \"there\"\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"blob\"; filename=\"b.bin\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n\u{FFFD}\0\r\n--XyZ--\r\n"
        #expect(text == expected)
        #expect(form.contentType == "multipart/form-data; boundary=XyZ")
        #expect(body.length == Int64(try await body.collect().count))
    }

    @Test func filePartsAreStreamedNotLoaded() async throws {
        let directory = try TemporaryDirectory()
        let contents = (0..<300_000).map { UInt8($0 % 253) }
        let file = try directory.file("photo.jpg", contents: contents)
        var form = MultipartForm(boundary: "B")
        form.append(field: "a", value: "1")
        form.append(file: file, name: "photo", contentType: "image/jpeg")
        let body = try form.makeBody()

        // The body references the file instead of holding its bytes.
        let parts = try #require(body.parts)
        #expect(parts.contains(.file(file, length: 300_000)))
        let heldInMemory = parts.reduce(0) { total, part in
            if case .bytes(let bytes) = part { return total + bytes.count }
            return total
        }
        #expect(heldInMemory < 1_000)

        // Chunks never exceed the chunk size, and the whole is exact.
        var received: [UInt8] = []
        for try await chunk in body.chunks(chunkSize: 4096) {
            #expect(chunk.count <= 4096)
            received += chunk
        }
        #expect(body.length == Int64(received.count))
        let header =
            "Content-Disposition: form-data; name=\"photo\"; filename=\"photo.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
        let headerBytes = Array(header.utf8)
        let start = try #require(Self.find(headerBytes, in: received)) + headerBytes.count
        #expect(Array(received[start..<start + contents.count]) == contents)
    }

    /// A streamed part: the framing around it as for any part, the body of
    /// unknown length and one-shot; a file part beside it still read from disk.
    @Test func aStreamedPartIsFramedAndTheBodyIsOneShot() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.file("a.txt", contents: Array("file".utf8))
        var form = MultipartForm(boundary: "XyZ")
        form.append(field: "title", value: "log")
        form.append(
            stream: AsyncThrowingStream { continuation in
                for piece in ["li", "", "ne 1\n", "line 2\n"] { continuation.yield(Array(piece.utf8)) }
                continuation.finish()
            }, name: "log", filename: "app.log", contentType: "text/plain")
        form.append(file: file, name: "f", contentType: "text/plain")
        let body = try form.makeBody()
        #expect(body.length == nil)
        #expect(!body.isReplayable)
        let text = String(decoding: try await body.collect(), as: UTF8.self)
        let expected =
            "--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nlog\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"log\"; filename=\"app.log\"\r\n"
            + "Content-Type: text/plain\r\n\r\nline 1\nline 2\n\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\nfile\r\n--XyZ--\r\n"
        #expect(text == expected)
        // The stream was taken: the same form built again cannot send it twice.
        await #expect(throws: CourierError.self) { _ = try await form.makeBody().collect() }
    }

    /// A retry that would send a streamed form again is refused, typed,
    /// instead of sending a form without its streamed part.
    @Test func aRetryCannotResendAStreamedForm() async throws {
        var form = MultipartForm()
        form.append(
            stream: AsyncThrowingStream { continuation in
                continuation.yield([1, 2, 3])
                continuation.finish()
            }, name: "blob")
        let transport = RecordingTransport(StubTransport.sequence([.status(503), .status(200)]))
        let client = APIClient(
            transport: transport, retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none), clock: TestClock())
        // PUT: a method the policy retries, but not with this body.
        let error = await expectFailure(
            client, Endpoint<RawResponse>(.put("upload"), on: .api, content: .multipart(form)))
        #expect(error?.response?.statusCode == 503)
        #expect(error?.retryStop?.reason == .bodyNotReplayable)
        #expect(transport.records.count == 1)
    }

    @Test func randomBoundariesDiffer() {
        #expect(MultipartForm().boundary != MultipartForm().boundary)
    }

    @Test func headerInjectionIsRejected() {
        var form = MultipartForm(boundary: "B")
        form.append(data: [1], name: "x\r\nX-Evil: 1")
        #expect(throws: CourierError.self) { try form.makeBody() }
        var named = MultipartForm(boundary: "B")
        named.append(data: [1], name: "x", filename: "a\nb")
        #expect(throws: CourierError.self) { try named.makeBody() }
    }

    /// Found by fuzz-multipart: content holding the delimiter used to end
    /// its part early at the server, and the form was sent anyway.
    @Test(arguments: [Array("a\r\n--XyZ\r\nb".utf8), Array("--XyZ--".utf8), Array("x\r\n--XyZ".utf8)])
    func contentHoldingTheBoundaryIsRefused(content: [UInt8]) {
        var form = MultipartForm(boundary: "XyZ")
        form.append(data: content, name: "field")
        #expect(throws: CourierError.self) { try form.makeBody() }
        var near = MultipartForm(boundary: "XyZ")
        near.append(data: Array("a\n--XyZ and --XyZ without a CR LF before".utf8), name: "field")
        #expect(throws: Never.self) { try near.makeBody() }
    }

    /// Found by fuzz-multipart: a boundary with `;` or `"` was put into the
    /// Content-Type bare, so a server read another boundary than the body's.
    @Test func boundariesFollowRFC2046AndAreQuotedWhenNeeded() throws {
        for bad in ["a;b", "a\"b", "trailing ", "", String(repeating: "b", count: 71), "caf\u{E9}"] {
            #expect(throws: CourierError.self, "\(bad)") { try MultipartForm(boundary: bad).makeBody() }
        }
        let spaced = MultipartForm(boundary: "a b:c=d")
        _ = try spaced.makeBody()
        #expect(spaced.contentType == "multipart/form-data; boundary=\"a b:c=d\"")
        #expect(
            MultipartForm(boundary: "plain-1_2.3").contentType == "multipart/form-data; boundary=plain-1_2.3")
    }

    @Test func quotesInNamesAreEscaped() async throws {
        var form = MultipartForm(boundary: "B")
        form.append(data: [], name: "a\"b", filename: "c\\d")
        let text = String(decoding: try await form.makeBody().collect(), as: UTF8.self)
        #expect(text.contains("name=\"a%22b\"; filename=\"c%5Cd\""))
    }

    @Test func missingFileFailsWhenTheBodyIsBuilt() {
        var form = MultipartForm(boundary: "B")
        form.append(file: URL(fileURLWithPath: "/nonexistent/x.jpg"), name: "f")
        #expect(throws: CourierError.self) { try form.makeBody() }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}

struct RequestBodyTests {
    @Test func replayableBodiesCanBeReadTwice() async throws {
        let body = RequestBody(bytes: [1, 2, 3])
        #expect(body.isReplayable)
        #expect(try await body.collect() == [1, 2, 3])
        #expect(try await body.collect() == [1, 2, 3])
    }

    @Test func streamsAreReadOnceThenFailClearly() async throws {
        let chunks = AsyncThrowingStream<[UInt8], any Error> { continuation in
            continuation.yield([1])
            continuation.yield([2, 3])
            continuation.finish()
        }
        let body = RequestBody(length: 3, chunks: chunks)
        #expect(!body.isReplayable)
        #expect(try await body.collect() == [1, 2, 3])
        await #expect(throws: CourierError.self) { try await body.collect() }
        do {
            _ = try await body.collect()
        } catch let error as CourierError {
            #expect(error.code == .bodyNotReplayable)
        }
    }

    @Test func collectRefusesBodiesOverTheLimit() async {
        await #expect(throws: CourierError.self) {
            try await RequestBody(bytes: [UInt8](repeating: 0, count: 10)).collect(upTo: 9)
        }
    }
}
