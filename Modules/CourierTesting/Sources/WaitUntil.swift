/// Thrown by ``waitUntil(_:hangGuard:fileID:line:_:)`` when its condition
/// still does not hold after the hang guard: the awaited state never came,
/// which is a failure of the code under test, not of a slow machine.
public struct WaitedTooLong: Error, CustomStringConvertible {
    /// What was awaited, as the caller described it.
    public let condition: String
    /// The file of the wait, as `#fileID` names it.
    public let fileID: String
    /// The line of the wait.
    public let line: Int
    /// How many times the condition was checked.
    public let checks: Int

    /// Where the wait was and what it awaited, for the test's failure message.
    public var description: String {
        "\(fileID):\(line): \(condition) did not hold after \(checks) checks: the awaited state never came"
    }
}

/// Waits until `condition` holds, letting every other task run meanwhile.
///
/// For a test that must wait for a state with no event to await: a counter
/// another task raises, a call reaching a queue, a server that answers.
/// Prefer an event where the code under test offers one (``TestGate``,
/// ``TestClock/waitForSleepers(_:)``). `holds` may be async and may throw:
/// an error it throws ends the wait with that error.
///
/// The wait yields first, so a state a few scheduling steps away is seen at
/// once; a wait that lasts then checks about once a millisecond, so it does
/// not keep a thread of the concurrency pool busy while the tasks it waits
/// for need one. `hangGuard` only catches a hang — a state that will never
/// come — and is far longer than any loaded machine needs: when it passes,
/// the wait throws ``WaitedTooLong`` naming the condition and the line,
/// where an unbounded loop would have hung the whole test run.
///
/// ```swift
/// let calls = (0..<3).map { _ in Task { try await client.send(endpoint) } }
/// try await waitUntil("three calls queued") { group.queuedCalls == 3 }
/// ```
public func waitUntil(
    _ condition: @autoclosure () -> String = "the condition",
    hangGuard: Duration = .seconds(600),
    fileID: String = #fileID,
    line: Int = #line,
    _ holds: () async throws -> Bool
) async throws {
    let spins = 1_000
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: hangGuard)
    var checks = 0
    while true {
        checks += 1
        if try await holds() { return }
        if checks <= spins {
            await Task.yield()
            continue
        }
        guard clock.now < deadline else {
            throw WaitedTooLong(condition: condition(), fileID: fileID, line: line, checks: checks)
        }
        try await Task.sleep(for: .milliseconds(1))
    }
}
