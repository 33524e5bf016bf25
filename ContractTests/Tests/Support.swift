import CourierCodable
import CourierCore
import CourierTesting
import CourierTransfers
import Foundation

/// The model most contracts decode.
struct User: Decodable, Sendable, Equatable {
    let id: Int
    let name: String
}

/// The usual client for a contract: Codable decoding, no retries unless asked,
/// a test clock that never sleeps.
/// The per-attempt timeout of the contracts' clients, and the silence a
/// download of theirs may keep: a hang guard, not a deadline anything is
/// meant to meet (the 60 s defaults are ones a loaded machine under
/// ThreadSanitizer missed).
let contractSafetyNet: Duration = .seconds(600)

func makeClient(
    _ kind: ContractTransport, transport: (any Transport)? = nil, retryPolicy: RetryPolicy = .never,
    clock: TestClock = TestClock(), interceptors: [any Interceptor] = [],
    attemptInterceptors: [any Interceptor] = [], plugins: [any Plugin] = []
) -> APIClient {
    var configuration = APIClient.Configuration(
        transport: transport ?? kind.transport, decoder: .codable, callInterceptors: interceptors,
        attemptInterceptors: attemptInterceptors, plugins: plugins, retryPolicy: retryPolicy,
        timeout: contractSafetyNet, clock: clock)
    configuration.downloadTimeouts = DownloadTimeouts(idle: contractSafetyNet)
    return APIClient(configuration: configuration)
}

extension ContractServer {
    /// The test's API as a node, with the standard envelope unless told otherwise.
    func node(envelope: EnvelopeFormat? = .standard) -> Node {
        Node("contract", baseURL: baseURL, envelope: envelope)
    }

    /// The same API under another origin — a second name for the server:
    /// `MOCK_SERVER_ALIAS_URL` beside `MOCK_SERVER_URL` (docker-compose), or
    /// the loopback address by the other of its two names (`127.0.0.1`,
    /// `localhost`) — to the browser's rules a different server; `nil` when
    /// the server has no second name.
    func nodeAtAnotherOrigin() -> Node? {
        let environment = ProcessInfo.processInfo.environment
        if let remote = environment["MOCK_SERVER_URL"], !remote.isEmpty,
            let alias = environment["MOCK_SERVER_ALIAS_URL"], !alias.isEmpty
        {
            let root = remote.hasSuffix("/") ? String(remote.dropLast()) : remote
            let other = alias.hasSuffix("/") ? String(alias.dropLast()) : alias
            return Node(
                "contract-elsewhere", baseURL: baseURL.replacingOccurrences(of: root, with: other),
                envelope: .standard)
        }
        for (name, other) in [("//127.0.0.1:", "//localhost:"), ("//localhost:", "//127.0.0.1:")]
        where baseURL.contains(name) {
            return Node(
                "contract-elsewhere", baseURL: baseURL.replacingOccurrences(of: name, with: other),
                envelope: .standard)
        }
        return nil
    }
}
