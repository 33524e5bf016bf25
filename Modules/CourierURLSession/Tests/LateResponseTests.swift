@_spi(Transport) import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response that arrives whole after the total's end is a timeout, even
/// when the timer that would have cut the task has not run yet (the pool
/// can start it late on a loaded machine): the task's state checks the end
/// itself when the session reports the task complete. No wall clock: the
/// deadline runs on `TestClock`, and no timer task exists here at all.
struct LateResponseTests {
    /// Feeds `state` a whole 200 response of `body`, with the clock moved
    /// `elapsed` on, then reports the task complete and returns the outcome.
    func complete(
        _ state: TaskState, body: String, after elapsed: Duration, clock: TestClock
    ) async -> Result<RawResponse, any Error> {
        let url = URL(string: "http://example.test/trickle")
        let head = url.flatMap {
            HTTPURLResponse(
                url: $0, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Length": "\(body.utf8.count)"])
        }
        guard let head else { return .failure(TransportError(.other, "no HTTPURLResponse")) }
        state.received(head)
        _ = state.append(Data(body.utf8))
        clock.advance(by: elapsed)
        do {
            return .success(
                try await withCheckedThrowingContinuation { continuation in
                    state.start(continuation)
                    state.taskEnded(error: nil)
                })
        } catch {
            return .failure(error)
        }
    }

    @Test func aResponseCompleteInTimeIsKept() async throws {
        let clock = TestClock(mode: .manual)
        let state = TaskState(
            options: TransportOptions(), uploadTotal: nil, download: nil,
            deadline: TotalDeadline(.seconds(1), clock: clock), whenTaskEnds: {})
        let response = try await complete(state, body: "whole", after: .milliseconds(999), clock: clock).get()
        #expect(response.head.status.code == 200)
        #expect(response.body == .bytes(Array("whole".utf8)))
    }

    @Test func aResponseCompleteAfterTheEndIsATimeout() async {
        let clock = TestClock(mode: .manual)
        let state = TaskState(
            options: TransportOptions(), uploadTotal: nil, download: nil,
            deadline: TotalDeadline(.seconds(1), clock: clock), whenTaskEnds: {})
        let error = await complete(state, body: "whole", after: .seconds(3), clock: clock).timeout
        #expect(
            error?.message.contains("no complete response within") == true, "\(String(describing: error))")
    }

    @Test func aLateDownloadIsNeverMovedIntoPlace() async throws {
        let clock = TestClock(mode: .manual)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("late-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = DownloadTarget(folder.appendingPathComponent("file.txt"))
        var options = TransportOptions()
        options.destination = destination
        let state = TaskState(
            options: options, uploadTotal: nil, download: try PartialDownload(destination),
            deadline: TotalDeadline(.seconds(1), clock: clock), whenTaskEnds: {})
        let error = await complete(state, body: "whole", after: .seconds(3), clock: clock).timeout
        #expect(error != nil)
        #expect(!FileManager.default.fileExists(atPath: destination.url.path))
        // Nothing left beside it either: the partial file went with the failure.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        #expect(left.isEmpty, "\(left)")
    }
}

extension Result<RawResponse, any Error> {
    /// The failure, when it is a timeout.
    fileprivate var timeout: TransportError? {
        guard case .failure(let error as TransportError) = self, error.code == .timedOut else { return nil }
        return error
    }
}
