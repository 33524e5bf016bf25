import CourierCache
import CourierCodable
@_spi(Locking) import CourierCore
import CourierRedis
import CourierTesting
import Foundation
import HTTPTypes

@testable import CourierCacheRedis

struct Profile: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

extension Node {
    static let fleet = Node("fleet", baseURL: "https://api.example.com/v1")
}

/// The upstream API as one instance of the fleet sees it: counts the
/// requests that reach it and answers each with what `reply` says.
final class Upstream: Sendable {
    private let received = Locked<[HTTPRequest]>([])
    private let reply: @Sendable (HTTPRequest, Int) -> StubOutcome

    init(_ reply: @escaping @Sendable (HTTPRequest, Int) -> StubOutcome) { self.reply = reply }

    /// `{"id": 7, "name": "<name>-<n>"}` with an ETag and `max-age=60`; a
    /// request that names the ETag gets 304.
    static func versioned(_ name: String) -> Upstream {
        Upstream { head, number in
            if head.headerFields[.ifNoneMatch] == "\"v1\"" {
                return .status(304, headers: [.eTag: "\"v1\"", .cacheControl: "max-age=60"])
            }
            return .json(
                #"{"id": 7, "name": "\#(name)-\#(number)"}"#,
                headers: [.eTag: "\"v1\"", .cacheControl: "max-age=60"])
        }
    }

    var transport: StubTransport {
        StubTransport { [self] request in
            let number = received.withLock { requests in
                requests.append(request.head)
                return requests.count
            }
            return reply(request.head, number)
        }
    }

    var requests: [HTTPRequest] { received.withLock { $0 } }
}

/// A client of `upstream` whose responses go through `cache`.
func client(
    of upstream: Upstream, cache: ResponseCache, clock: TestClock, interceptors: [any Interceptor] = [],
    attemptInterceptors: [any Interceptor] = [], plugins: [any Plugin] = []
) -> APIClient {
    var configuration = APIClient.Configuration(
        transport: upstream.transport, decoder: .codable, callInterceptors: interceptors,
        attemptInterceptors: attemptInterceptors, plugins: plugins, clock: clock)
    configuration.cache = cache
    return APIClient(configuration: configuration)
}

/// A store configuration for a test server: timeouts only a hang reaches
/// (the stall test sets its own), and no wait before reconnecting.
func redisConfiguration(_ server: RedisTestServer, namespace: String = "tests") -> RedisStore.Configuration {
    RedisStore.Configuration(
        endpoint: .tcp(host: "127.0.0.1", port: server.port), namespace: namespace,
        connectTimeout: .seconds(600), commandTimeout: .seconds(600), reconnectDelay: .zero)
}

/// A raw connection to a test server, for what a test does behind the store's back.
func rawConnection(_ server: RedisTestServer) throws -> RedisConnection {
    try RedisConnection(redisConfiguration(server).linkSettings)
}

extension RedisConnection {
    /// Sends a command spelled as strings.
    func send(_ words: String...) throws -> RedisReply {
        try command(words.map { Array($0.utf8) })
    }
}

/// An entry with a text body, stored at `date`.
func textEntry(
    _ text: String, at date: Date = Date(timeIntervalSince1970: 1_700_000_000), expires: Date? = nil
)
    -> CacheEntry
{
    CacheEntry(
        status: 200, headerFields: [.contentType: "text/plain", .eTag: "\"e\""], body: Array(text.utf8),
        storedAt: date, expiresAt: expires)
}

/// A fresh directory under the system's temporary directory, removed by `body`'s end.
func inTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "courier-redis-tests-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}
