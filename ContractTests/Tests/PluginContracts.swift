import CourierCodable
import CourierCore
import CourierTesting
import HTTPTypes
import NIOConcurrencyHelpers
import Synchronization
import Testing

/// `plugins.json`: the hooks run in their documented order, once each where
/// promised, and can decorate, veto and replace.
struct PluginContracts {
    /// Records every hook and stamps each attempt's request.
    final class Recorder: Plugin {
        let events = NIOLockedValueBox<[String]>([])
        let veto: Bool
        let replacement: RawResponse?

        init(veto: Bool = false, replacement: RawResponse? = nil) {
            self.veto = veto
            self.replacement = replacement
        }

        var recorded: [String] { events.withLockedValue { $0 } }

        func prepare(_ request: HTTPRequest, context: CallContext) async throws -> HTTPRequest {
            events.withLockedValue { $0.append("prepare \(context.attempt)") }
            if veto { throw CourierError.vetoed("offline mode") }
            var request = request
            request.headerFields[HTTPField.Name("X-Prepared") ?? .via] = "\(context.attempt)"
            return request
        }

        func willSend(_ request: HTTPRequest, context: CallContext) async {
            events.withLockedValue { $0.append("willSend \(context.attempt)") }
        }

        func didReceive(
            _ result: Result<RawResponse, CourierError>, request: HTTPRequest, context: CallContext
        )
            async
        {
            let what = (try? result.get()).map { "\($0.statusCode)" } ?? "error"
            events.withLockedValue { $0.append("didReceive \(context.attempt) \(what)") }
        }

        func process(_ result: Result<RawResponse, CourierError>, context: CallContext) async
            -> Result<RawResponse, CourierError>
        {
            events.withLockedValue { $0.append("process") }
            return replacement.map { .success($0) } ?? result
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func hookOrder(kind: ContractTransport) async throws {
        try await contract("plugins: hook order, journal and records", kind) {
            try await ContractServer.with("plugins.json") { server in
                let recorder = Recorder()
                let client = makeClient(
                    kind, retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none), plugins: [recorder])
                _ = try await client.send(Endpoint<User>(.get("plugged"), on: server.node()))
                let expected = [
                    "prepare 1", "willSend 1", "didReceive 1 503", "prepare 2", "willSend 2",
                    "didReceive 2 200",
                    "process",
                ]
                check(recorder.recorded == expected, "hooks \(recorder.recorded)")
                let journal = try await server.exchanges()
                journal.expectCount("plugged", .exactly(2))
                let stamps = journal.attempts("plugged").map { $0.header("X-Prepared") }
                check(stamps == ["1", "2"], "prepared headers \(stamps)")
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func processChangesTheResult(kind: ContractTransport) async throws {
        try await contract("plugins: process replaces the result", kind) {
            try await ContractServer.with("plugins.json") { server in
                var head = HTTPResponse(status: .ok)
                head.headerFields[.contentType] = "application/json"
                let cached = RawResponse(
                    head: head, body: .bytes(Array(#"{"code":0,"data":{"id":2,"name":"Offline"}}"#.utf8)))
                let recorder = Recorder(replacement: cached)
                let user = try await makeClient(kind, plugins: [recorder]).send(
                    Endpoint<User>(.get("always-503"), on: server.node()))
                check(user == User(id: 2, name: "Offline"), "processed: \(user)")
                check(
                    recorder.recorded.filter { $0 == "process" }.count == 1,
                    "process once: \(recorder.recorded)")
                try await server.exchanges().expectCount("always-503", .exactly(1))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func aVetoCallsTheCallerBackExactlyOnce(kind: ContractTransport) async throws {
        try await contract("plugins: veto calls back exactly once", kind) {
            try await ContractServer.with("plugins.json") { server in
                let recorder = Recorder(veto: true)
                let callbacks = NIOLockedValueBox<[Result<User, CourierError>]>([])
                // The client is kept while the call runs: a released one ends it.
                let client = makeClient(kind, plugins: [recorder])
                let call = client.send(Endpoint<User>(.get("vetoed"), on: server.node())) { result in
                    callbacks.withLockedValue { $0.append(result) }
                }
                await call.wait()
                withExtendedLifetime(client) {}
                let results = callbacks.withLockedValue { $0 }
                check(results.count == 1, "callbacks: \(results.count)")
                if case .failure(let error) = results.first {
                    check(error.code == .vetoed, "\(error)")
                } else {
                    check(false, "expected a veto, got \(results)")
                }
                check(recorder.recorded == ["prepare 1", "process"], "hooks \(recorder.recorded)")
                try await server.exchanges().expectTotal(.exactly(0))
            }
        }
    }
}
