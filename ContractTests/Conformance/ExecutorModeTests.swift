import CourierCore
import CourierCurl
import CourierMockServer
import Foundation
import Testing

/// CurlTransport's opt-in mode in which callers run on the transport's thread.
struct ExecutorModeTests {
    /// The name of the thread running the caller (Linux).
    static func threadName() -> String {
        let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
        return name?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    }

    @Test func requestsNeverLeaveTheTransportsThread() async throws {
        try await withMockServer { server async throws in
            try await withCurlTransport { transport async throws in
                let (names, statuses) = try await transport.withExecutorPreference {
                    var names = [Self.threadName()]
                    var statuses: [Int] = []
                    for index in 0..<5 {
                        statuses.append(
                            try await transport.send(
                                request(server, "/status/\(200 + index)"), options: .guarded
                            )
                            .statusCode)
                        names.append(Self.threadName())
                    }
                    return (names, statuses)
                }
                #expect(Set(names) == ["courier-curl"])
                #expect(statuses == [200, 201, 202, 203, 204])
            }
        }
    }

    @Test func concurrentTasksShareTheThread() async throws {
        try await withMockServer { server async throws in
            try await withCurlTransport { transport async throws in
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<64 {
                        group.addTask(executorPreference: transport.taskExecutor) {
                            try await transport.send(request(server, "/status/204"), options: .guarded)
                                .statusCode
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses == Array(repeating: 204, count: 64))
            }
        }
    }

    @Test func aTaskThatOutlivesTheTransportMovesOn() async throws {
        try await withMockServer { server async throws in
            let transport = try CurlTransport()
            let outcome = await transport.withExecutorPreference {
                await transport.shutdown()
                // The engine thread is gone: this job runs on the global executor.
                do {
                    _ = try await transport.send(request(server, "/status/200"), options: .guarded)
                    return "sent"
                } catch {
                    return "\(error)"
                }
            }
            #expect(outcome.contains("shut down"))
        }
    }
}
