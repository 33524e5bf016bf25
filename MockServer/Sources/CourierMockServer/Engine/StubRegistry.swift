import NIOConcurrencyHelpers
import NIOCore
import Synchronization

/// What the registry decided for a request that matched a stub.
struct MatchedResponse: Sendable {
    var stubID: String
    var response: StubResponse
    /// The position in the stub's sequence.
    var responseIndex: Int
    var scenarioName: String?
    var stateBefore: String?
    var stateAfter: String?
    /// A failure to record (an exhausted `fail` sequence).
    var failure: String?
    /// The delay chosen for this answer, in milliseconds.
    var delayMs: Int
    /// The whole keep-alive answer as bytes, made when the stub was loaded;
    /// `nil` for a fault or a stream (see ``ResponsePlan/prepared(_:)``).
    var prepared: ByteBuffer?
}

/// The stubs, their sequence positions, scenario states and failures, all
/// changed together under one lock so a match, a sequence step and a state
/// change are atomic.
final class StubRegistry: Sendable {
    /// The state every scenario starts in.
    static let startedState = "Started"

    private struct Entry {
        var stub: StubMapping
        var order: Int
        var hits = 0
        var served = 0
        var random: SeededRandom?
        /// Each response's prepared bytes, by position.
        let prepared: [ByteBuffer?]

        init(stub: StubMapping, order: Int) {
            self.stub = stub
            self.order = order
            prepared = stub.responses.map(ResponsePlan.prepared)
        }
    }

    private struct State {
        var entries: [Entry] = []
        var nextOrder = 0
        var scenarios: [String: String] = [:]
        var failures: [String] = []
        /// Indices of `entries` in match order, kept up to date by every
        /// change to the stubs so that matching never sorts.
        var matchOrder: [Int] = []
        /// Whether any stub answers with a request-body fault; when none
        /// does, request heads skip the early match.
        var hasRequestBodyFaults = false

        mutating func reorder() {
            hasRequestBodyFaults = entries.contains { entry in
                entry.stub.responses.contains { $0.fault?.actsOnRequestBody == true }
            }
            matchOrder = entries.indices.sorted {
                (entries[$0].stub.priority, -entries[$0].order) < (
                    entries[$1].stub.priority, -entries[$1].order
                )
            }
        }

        var ordered: [Entry] { matchOrder.map { entries[$0] } }
    }

    private let loaded: [StubMapping]
    private let state = NIOLockedValueBox(State())

    init(stubs: [StubMapping]) {
        self.loaded = stubs
        reset(restoreMappings: true)
    }

    /// Adds or replaces a stub (same id); a newer stub wins ties in priority.
    func add(_ stub: StubMapping) {
        state.withLockedValue { state in
            state.entries.removeAll { $0.stub.id == stub.id }
            state.entries.append(Entry(stub: stub, order: state.nextOrder))
            state.nextOrder += 1
            state.reorder()
            if let name = stub.scenario?.name, state.scenarios[name] == nil {
                state.scenarios[name] = Self.startedState
            }
        }
    }

    /// Removes a stub; returns whether it existed.
    func remove(id: String) -> Bool {
        state.withLockedValue { state in
            let before = state.entries.count
            state.entries.removeAll { $0.stub.id == id }
            state.reorder()
            return state.entries.count != before
        }
    }

    /// Every stub with its hit count, in match order.
    func stubs() -> [(stub: StubMapping, hits: Int)] {
        state.withLockedValue { state in state.ordered.map { ($0.stub, $0.hits) } }
    }

    /// Sequence positions, hit counts, scenarios and failures back to the
    /// start; with `restoreMappings`, the stubs back to those loaded at start.
    func reset(restoreMappings: Bool) {
        state.withLockedValue { state in
            if restoreMappings {
                state.entries = []
                state.nextOrder = 0
                for stub in loaded {
                    state.entries.append(Entry(stub: stub, order: state.nextOrder))
                    state.nextOrder += 1
                }
                state.reorder()
            } else {
                for index in state.entries.indices {
                    state.entries[index].hits = 0
                    state.entries[index].served = 0
                    state.entries[index].random = nil
                }
            }
            state.failures = []
            state.scenarios = [:]
            for entry in state.entries {
                if let name = entry.stub.scenario?.name { state.scenarios[name] = Self.startedState }
            }
        }
    }

    /// Every scenario back to `Started`.
    func resetScenarios() {
        state.withLockedValue { state in
            for name in state.scenarios.keys { state.scenarios[name] = Self.startedState }
        }
    }

    /// The current state of every scenario.
    func scenarios() -> [String: String] { state.withLockedValue { $0.scenarios } }

    /// Sets a scenario's state; returns false for an unknown scenario.
    func setScenario(_ name: String, to newState: String) -> Bool {
        state.withLockedValue { state in
            guard state.scenarios[name] != nil else { return false }
            state.scenarios[name] = newState
            return true
        }
    }

    /// Every state a scenario's stubs mention.
    func possibleStates(of name: String) -> [String] {
        state.withLockedValue { state in
            var names: Set<String> = [Self.startedState]
            for entry in state.entries where entry.stub.scenario?.name == name {
                if let required = entry.stub.scenario?.requiredState { names.insert(required) }
                if let next = entry.stub.scenario?.newState { names.insert(next) }
            }
            return names.sorted()
        }
    }

    func recordFailure(_ failure: String) { state.withLockedValue { $0.failures.append(failure) } }

    /// Failures so far plus required stubs never hit: what `verify()` reports.
    func problems() -> [String] {
        state.withLockedValue { state in
            state.failures
                + state.ordered.filter { $0.stub.required && $0.hits == 0 }
                .map { "required stub \"\($0.stub.id)\" was never hit" }
        }
    }

    /// Picks the stub for a complete request and advances its sequence and scenario.
    func match(_ request: RecordedRequest) -> Result<MatchedResponse, NearMissReport> {
        state.withLockedValue { state in
            for index in state.matchOrder where Self.applies(state.entries[index], state) {
                if state.entries[index].stub.request.matches(request) {
                    return .success(Self.serve(index, &state))
                }
            }
            return .failure(Self.nearMisses(for: request, state))
        }
    }

    /// On the head alone: the stub whose next answer is a request-body fault,
    /// consumed only in that case. The request is built only when some stub
    /// has such a fault.
    func matchRequestBodyFault(_ head: () -> RecordedRequest) -> MatchedResponse? {
        state.withLockedValue { state in
            guard state.hasRequestBodyFaults else { return nil }
            let request = head()
            for index in state.matchOrder where Self.applies(state.entries[index], state) {
                let entry = state.entries[index]
                guard entry.stub.request.matches(request, includeBody: false) else {
                    continue
                }
                guard entry.stub.request.body.isEmpty else { return nil }
                let next = min(entry.served, entry.stub.responses.count - 1)
                guard entry.stub.responses[next].fault?.actsOnRequestBody == true else { return nil }
                return Self.serve(index, &state)
            }
            return nil
        }
    }

    private static func applies(_ entry: Entry, _ state: State) -> Bool {
        guard let scenario = entry.stub.scenario, let required = scenario.requiredState else { return true }
        return state.scenarios[scenario.name] == required
    }

    private static func serve(_ index: Int, _ state: inout State) -> MatchedResponse {
        var entry = state.entries[index]
        let stub = entry.stub
        entry.hits += 1
        let position = entry.served
        entry.served += 1
        var failure: String?
        var response: StubResponse
        var prepared: ByteBuffer?
        if position < stub.responses.count {
            response = stub.responses[position]
            prepared = entry.prepared[position]
        } else if stub.exhausted == .repeatLast, let last = stub.responses.last {
            response = last
            prepared = entry.prepared.last ?? nil
        } else {
            failure =
                "stub \"\(stub.id)\" has \(stub.responses.count) responses and was hit \(position + 1) times"
            response = .json(
                .object(["error": .string("sequence exhausted"), "stub": .string(stub.id)]), status: 500)
        }
        var delay = 0
        switch response.delay {
        case .fixed(let milliseconds): delay = milliseconds
        case .uniform(let lower, let upper, let seed):
            var random = entry.random ?? SeededRandom(seed: seed)
            delay = Int.random(in: lower...upper, using: &random)
            entry.random = random
        case nil: break
        }
        var matched = MatchedResponse(
            stubID: stub.id, response: response, responseIndex: min(position, stub.responses.count - 1),
            failure: failure, delayMs: delay, prepared: prepared)
        if let scenario = stub.scenario {
            matched.scenarioName = scenario.name
            matched.stateBefore = state.scenarios[scenario.name] ?? startedState
            if let next = scenario.newState { state.scenarios[scenario.name] = next }
            matched.stateAfter = state.scenarios[scenario.name]
        }
        if let failure { state.failures.append(failure) }
        state.entries[index] = entry
        return matched
    }

    private static func nearMisses(for request: RecordedRequest, _ state: State) -> NearMissReport {
        let candidates = state.ordered.map { entry -> NearMiss in
            var results = entry.stub.request.evaluate(request)
            if let scenario = entry.stub.scenario, let required = scenario.requiredState {
                let current = state.scenarios[scenario.name] ?? startedState
                results.append(
                    .init(
                        matcher: "scenario \(scenario.name) in state \(required)", actual: current,
                        passed: current == required))
            }
            return NearMiss(
                stubID: entry.stub.id, failed: results.filter { !$0.passed },
                passedCount: results.filter(\.passed).count)
        }
        let closest = candidates.sorted {
            ($0.failed.count, -$0.passedCount) < ($1.failed.count, -$1.passedCount)
        }
        return NearMissReport(
            method: request.method, uri: SecretMask.standard.target(request.uri),
            nearMisses: Array(closest.prefix(3)))
    }
}

/// The answer to an unmatched request: what came in, and the closest stubs.
public struct NearMissReport: Error, Sendable, Hashable, Encodable {
    /// The request's method.
    public var method: String
    /// The request's target.
    public var uri: String
    /// Up to three stubs, closest first.
    public var nearMisses: [NearMiss]

    /// One line per near miss, for failure messages.
    public var summary: String {
        var lines = ["no stub matched \(method) \(uri)"]
        for miss in nearMisses {
            let failed = miss.failed.map { "\($0.matcher) (was \($0.actual))" }.joined(separator: "; ")
            lines.append("  \(miss.stubID): \(failed)")
        }
        return lines.joined(separator: "\n")
    }
}
