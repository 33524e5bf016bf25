import Courier
import Foundation
import Synchronization

/// One soak over one transport: `calls` calls in windows, `concurrency` at a
/// time, the process gauged after every window.
struct SoakRun {
    let client: APIClient
    let node: Node
    let calls: Int
    let concurrency: Int
    let window: Int
    /// The kinds mixed in; the others' places go to `ok` calls.
    var kinds: Set<SoakCall> = Set(SoakCall.allCases)

    /// How calls ended: per call index, how many times it ended (must be 1),
    /// and per kind, how many ended with each outcome.
    final class Tally: Sendable {
        private struct State {
            var endings: [UInt8]
            var outcomes: [SoakCall: [String: Int]] = [:]
        }
        private let state: Mutex<State>

        init(calls: Int) { state = Mutex(State(endings: Array(repeating: 0, count: calls))) }

        func record(_ index: Int, _ kind: SoakCall, _ outcome: String) {
            state.withLock { state in
                state.endings[index] &+= 1
                state.outcomes[kind, default: [:]][outcome, default: 0] += 1
            }
        }

        /// Calls that ended other than once (never, or twice or more).
        var notEndedOnce: Int { state.withLock { $0.endings.count { $0 != 1 } } }
        var outcomes: [SoakCall: [String: Int]] { state.withLock { $0.outcomes } }
    }

    /// A row of the table: the gauges after a window, and the window's CPU per call.
    struct Row {
        let done: Int
        let gauges: ProcessGauges
        let cpuMicrosPerCall: Double
        let callsPerSecond: Double
    }

    /// Runs every window; returns the rows and the tally.
    func run(report: (Row) -> Void) async -> (rows: [Row], tally: Tally) {
        let tally = Tally(calls: calls)
        var rows: [Row] = []
        var previous = ProcessGauges.read()
        var start = 0
        while start < calls {
            let end = min(start + window, calls)
            let began = ContinuousClock.now
            await runWindow(start..<end, tally)
            let elapsed = ContinuousClock.now - began
            let gauges = ProcessGauges.read()
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let row = Row(
                done: end, gauges: gauges,
                cpuMicrosPerCall: (gauges.cpuSeconds - previous.cpuSeconds) * 1e6 / Double(end - start),
                callsPerSecond: Double(end - start) / seconds)
            report(row)
            rows.append(row)
            previous = gauges
            start = end
        }
        return (rows, tally)
    }

    /// One window: workers take the next index until the window is used up.
    private func runWindow(_ indices: Range<Int>, _ tally: Tally) async {
        let next = NextIndex(indices)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while true {
                        guard let index = next.take() else { return }
                        let mixed = SoakCall.kind(of: index)
                        let kind = kinds.contains(mixed) ? mixed : .ok
                        let result: Result<SoakItem, any Error>
                        do {
                            result = .success(
                                try await client.send(Endpoint<SoakItem>(.get(kind.path), on: node)))
                        } catch {
                            result = .failure(error)
                        }
                        tally.record(index, kind, SoakCall.outcome(of: result))
                    }
                }
            }
        }
    }
}

/// The indices of a window, handed out one at a time to the workers.
final class NextIndex: Sendable {
    private let next: Mutex<Int>
    private let end: Int

    init(_ indices: Range<Int>) {
        next = Mutex(indices.lowerBound)
        end = indices.upperBound
    }

    /// The next index, or `nil` when the window is used up.
    func take() -> Int? {
        next.withLock { value in
            guard value < end else { return nil }
            defer { value += 1 }
            return value
        }
    }
}
