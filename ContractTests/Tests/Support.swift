import CourierCodable
import CourierCore
import CourierTesting

/// The model most contracts decode.
struct User: Decodable, Sendable, Equatable {
    let id: Int
    let name: String
}

/// The usual client for a contract: Codable decoding, no retries unless asked,
/// a test clock that never sleeps.
func makeClient(
    _ kind: ContractTransport, transport: (any Transport)? = nil, retryPolicy: RetryPolicy = .never,
    clock: TestClock = TestClock(), interceptors: [any Interceptor] = [],
    attemptInterceptors: [any Interceptor] = [], plugins: [any Plugin] = []
) -> APIClient {
    APIClient(
        transport: transport ?? kind.transport, decoder: .codable, interceptors: interceptors,
        attemptInterceptors: attemptInterceptors, plugins: plugins, retryPolicy: retryPolicy, clock: clock)
}

extension ContractServer {
    /// The test's API as a node, with the standard envelope unless told otherwise.
    func node(envelope: EnvelopeFormat? = .standard) -> Node {
        Node("contract", baseURL: baseURL, envelope: envelope)
    }
}
