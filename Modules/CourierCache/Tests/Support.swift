import CourierCodable
@_spi(Locking) import CourierCore
import CourierTesting
import Foundation
import HTTPTypes

@testable import CourierCache

struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

extension Node {
    static let api = Node("api", baseURL: "https://api.example.com/v1")
    static let enveloped = Node("enveloped", baseURL: "https://api.example.com/v1", envelope: .standard)
}

/// A server double for the cache's tests: answers each request with what
/// `answer` says and remembers every request head, so a test can tell what
/// reached "the network".
final class Origin: Sendable {
    private let heads = Locked<[HTTPRequest]>([])
    private let answer: @Sendable (HTTPRequest, Int) -> StubOutcome

    /// - Parameter answer: The response to the n-th request (from 1).
    init(_ answer: @escaping @Sendable (HTTPRequest, Int) -> StubOutcome) {
        self.answer = answer
    }

    /// Answers `{"id": 7, "name": "v<n>"}` to the n-th request.
    static func versions(headers: HTTPFields = [:]) -> Origin {
        Origin { _, number in .json(#"{"id": 7, "name": "v\#(number)"}"#, headers: headers) }
    }

    var transport: StubTransport {
        StubTransport { [self] request in
            let number = heads.withLock { heads in
                heads.append(request.head)
                return heads.count
            }
            return answer(request.head, number)
        }
    }

    /// The requests that reached it.
    var requests: [HTTPRequest] { heads.withLock { $0 } }
    var count: Int { requests.count }
}

/// A client over `origin` with `cache`, decoding with Codable.
func makeClient(
    _ origin: Origin, cache: ResponseCache, clock: TestClock = TestClock(),
    interceptors: [any Interceptor] = [],
    attemptInterceptors: [any Interceptor] = [], plugins: [any Plugin] = []
) -> APIClient {
    var configuration = APIClient.Configuration(
        transport: origin.transport, decoder: .codable, callInterceptors: interceptors,
        attemptInterceptors: attemptInterceptors, plugins: plugins, clock: clock)
    configuration.cache = cache
    return APIClient(configuration: configuration)
}

/// Every delivery of one call, in order.
func deliveries<Response>(_ client: APIClient, _ endpoint: Endpoint<Response>) async -> [CacheDelivery<
    Response
>] {
    var all: [CacheDelivery<Response>] = []
    for await delivery in client.deliveries(endpoint) { all.append(delivery) }
    return all
}

/// What a delivery list looks like, for one-line expectations:
/// `["cache v1", "network v2 last"]`.
func summary(_ deliveries: [CacheDelivery<User>]) -> [String] {
    deliveries.map { delivery in
        let what: String
        switch delivery.result {
        case .success(let reply): what = reply.model.name
        case .failure(let error): what = "error \(error.code)"
        }
        return "\(delivery.source) \(what)" + (delivery.isLast ? " last" : "")
    }
}

/// A fresh directory under the system's temporary directory, removed by `body`'s end.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "courier-cache-tests-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// An entry with a text body, stored at `date`.
func entry(_ text: String, at date: Date = Date(timeIntervalSince1970: 1_700_000_000), expires: Date? = nil)
    -> CacheEntry
{
    CacheEntry(
        status: 200, headerFields: [.contentType: "text/plain"], body: Array(text.utf8), storedAt: date,
        expiresAt: expires)
}
