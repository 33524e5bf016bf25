import CourierCodable
@_spi(Locking) @_spi(Transport) import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Synchronization
import Testing

struct TestKitTests {
    let request = OutgoingRequest(head: HTTPRequest(method: .get, scheme: "https", authority: "h", path: "/"))

    @Test func sequencesRepeatTheLastOrFail() async throws {
        let repeating = StubTransport.sequence([.status(500), .status(201)])
        var statuses: [Int] = []
        for _ in 0..<3 { statuses.append(try await repeating.send(request, options: .init()).statusCode) }
        #expect(statuses == [500, 201, 201])

        let failing = StubTransport.sequence([.status(200)], exhausted: .fail)
        _ = try await failing.send(request, options: .init())
        await #expect(throws: TransportError.self) { try await failing.send(request, options: .init()) }
    }

    @Test func latencyWaitsOnTheClockAndTimeoutsFire() async throws {
        let clock = TestClock(mode: .manual)
        let stub = StubTransport(latency: .seconds(2), clock: clock) { _ in .status(200) }
        let pending = Task { try await stub.send(request, options: .init()) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        #expect(try await pending.value.statusCode == 200)

        let auto = TestClock()
        let slow = StubTransport(latency: .seconds(10), clock: auto) { _ in .status(200) }
        do {
            _ = try await slow.send(request, options: .init(timeout: .seconds(3)))
            Issue.record("a 10 s stub answered within a 3 s timeout")
        } catch let error as TransportError {
            #expect(error.code == .timedOut)
            #expect(auto.now == .seconds(3))
        }
    }

    @Test func manualClockWakesSleepersInOrderOfTheirEnd() async throws {
        let clock = TestClock(mode: .manual)
        let order = IntLog()
        let late = Task {
            try await clock.sleep(for: .seconds(5))
            order.append(5)
        }
        await clock.waitForSleepers(1)
        let early = Task {
            try await clock.sleep(for: .seconds(1))
            order.append(1)
        }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        try await early.value
        #expect(order.values == [1])
        clock.advance(by: .seconds(4))
        try await late.value
        #expect(order.values == [1, 5])
        #expect(clock.now == .seconds(5))
        #expect(clock.sleeps == [.seconds(5), .seconds(1)])
    }

    @Test func autoAdvanceMovesTimeAndTheDate() async throws {
        let clock = TestClock()
        let start = clock.date
        try await clock.sleep(for: .milliseconds(1500))
        #expect(clock.now == .milliseconds(1500))
        #expect(clock.date.timeIntervalSince(start) == 1.5)
    }

    @Test func recordingKeepsReplayableBodiesAndLeavesStreamsAlone() async throws {
        let seen = Locked<[UInt8]?>(nil)
        let inner = StubTransport { request in
            seen.withLock { $0 = request.body }
            return .status(200)
        }
        let recorder = RecordingTransport(inner)
        var bytesRequest = request
        bytesRequest.body = RequestBody(bytes: [1, 2])
        _ = try await recorder.send(bytesRequest, options: .init())
        #expect(recorder.records.last?.body == [1, 2])

        let stream = AsyncThrowingStream<[UInt8], any Error> { continuation in
            continuation.yield([7])
            continuation.finish()
        }
        var streamRequest = request
        streamRequest.body = RequestBody(length: 1, chunks: stream)
        _ = try await recorder.send(streamRequest, options: .init())
        #expect(recorder.records.last?.body == nil)
        #expect(recorder.records.last?.bodyLength == 1)
        #expect(seen.withLock { $0 } == [7])
    }

    @Test func stubOutcomesBuildResponses() async throws {
        let stub = StubTransport.immediate(.envelope(code: 0, msg: "ok", data: #"{"a":1}"#))
        let response = try await stub.send(request, options: .init())
        #expect(response.headerFields[.contentType] == "application/json")
        #expect(response.body.bytes == Array(#"{"code":0,"msg":"ok","data":{"a":1}}"#.utf8))
    }

    @Test func waitUntilReturnsOnceAnotherTaskMakesTheConditionTrue() async throws {
        let log = IntLog()
        let gate = TestGate()
        let writer = Task {
            await gate.wait()
            log.append(1)
        }
        #expect(log.values.isEmpty)
        gate.open()
        try await waitUntil("the writer appended") { log.values == [1] }
        await writer.value
    }

    @Test func waitUntilThrowsWhereItWaitedWhenTheStateNeverComes() async throws {
        // A zero hang guard: the wait gives up after its first turns of
        // yielding, without any clock deciding the outcome.
        let line = #line + 2
        do {
            try await waitUntil("a condition that never holds", hangGuard: .zero) { false }
            Issue.record("waitUntil returned for a condition that never held")
        } catch let error as WaitedTooLong {
            #expect(error.condition == "a condition that never holds")
            #expect(error.line == line)
            #expect(error.fileID.hasSuffix("TestKitTests.swift"))
            #expect(error.checks > 1)
            #expect(error.description.contains("a condition that never holds did not hold"))
        }
    }
}

final class IntLog: Sendable {
    private let storage = Locked<[Int]>([])
    func append(_ value: Int) { storage.withLock { $0.append(value) } }
    var values: [Int] { storage.withLock { $0 } }
}
