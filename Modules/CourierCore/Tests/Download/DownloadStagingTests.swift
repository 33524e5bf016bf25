import CourierCore
import CourierTestSupport
import CourierTesting
import CourierTransfers
import Foundation
import Testing

/// A download reaches its destination only once its response is validated:
/// a 404 page, a retried 503 or an interceptor's error never touch it, and
/// leave no file behind (the folder is listed after each).
struct DownloadStagingTests {
    private func entries(_ directory: TemporaryDirectory) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.url.path)) ?? []).sorted()
    }

    @Test func aFailedValidationLeavesNothingAndTheErrorHasTheBody() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("report.pdf")
        let client = makeClient(
            StubTransport.immediate(.response(status: 404, body: Array("no such report".utf8))))
        let error = await expectFailure(
            client, .download(.get("r"), on: .api, to: DownloadDestination(destination)))
        #expect(error?.code == .status)
        #expect(error?.response?.body == .bytes(Array("no such report".utf8)))
        #expect(entries(directory).isEmpty, "left behind: \(entries(directory))")
    }

    @Test func aRetriedDownloadLandsOnceWithTheLastBody() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("data.bin")
        let transport = StubTransport.sequence([
            .response(status: 503, body: Array("busy".utf8)), .response(status: 200, body: [1, 2, 3]),
        ])
        let client = makeClient(transport, retryPolicy: .retryIfFailed(maxAttempts: 2))
        let file = try await client.send(.download(.get("d"), on: .api, to: DownloadDestination(destination)))
        #expect(file.url == destination)
        #expect(Array(try Data(contentsOf: destination)) == [1, 2, 3])
        #expect(entries(directory) == ["data.bin"])
    }

    @Test func aFileInTheWayFailsBeforeAnythingIsSent() async throws {
        let directory = try TemporaryDirectory()
        let destination = try directory.file("mine.txt", contents: Array("mine".utf8))
        let recorder = RecordingTransport(StubTransport.immediate(.response(status: 200, body: [1])))
        let error = await expectFailure(
            makeClient(recorder), .download(.get("d"), on: .api, to: DownloadDestination(destination)))
        #expect(error?.code == .transport)
        #expect((error?.underlying as? TransportError)?.code == .fileSystem)
        #expect(recorder.records.isEmpty)
        #expect(Array(try Data(contentsOf: destination)) == Array("mine".utf8))
        #expect(entries(directory) == ["mine.txt"])
    }

    @Test func anInterceptorFailingAfterTheExchangeLeavesNothing() async throws {
        struct Refused: Error {}
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("data.bin")
        let client = makeClient(
            StubTransport.immediate(.response(status: 200, body: [1, 2, 3])),
            attemptInterceptors: [
                .intercept(name: "refuses") { request, _, next in
                    _ = try await next(request)
                    throw Refused()
                }
            ])
        let error = await expectFailure(
            client, .download(.get("d"), on: .api, to: DownloadDestination(destination)))
        #expect(error?.code == .interceptor)
        #expect(entries(directory).isEmpty, "left behind: \(entries(directory))")
    }

    @Test func aValidDownloadReplacesOnlyWhenAllowed() async throws {
        let directory = try TemporaryDirectory()
        let destination = try directory.file("data.bin", contents: [9])
        let client = makeClient(StubTransport.immediate(.response(status: 200, body: [1, 2])))
        let file = try await client.send(
            .download(
                .get("d"), on: .api, to: DownloadDestination(destination, options: [.removePreviousFile])))
        #expect(file.url == destination)
        #expect(Array(try Data(contentsOf: destination)) == [1, 2])
        #expect(entries(directory) == ["data.bin"])
    }
}
