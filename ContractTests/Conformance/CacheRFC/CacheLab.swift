import CourierCache
import CourierCore
import CourierMockServer
import CourierTesting
import Foundation
import HTTPTypes

/// Where one cache requirement is checked: courier-mock answering the
/// stubs the check gives, a client over one transport with a
/// ``ResponseCache`` on a manual ``TestClock`` that starts at the stubs'
/// `Date`, and the server's journal for what reached it.
struct CacheLab: Sendable {
    /// The `Date` every stub sends, and where the clock starts.
    static let date = "Sun, 06 Nov 1994 08:49:37 GMT"
    /// ``date`` as a point in time (`date -u -d "<date>" +%s`).
    static let start = Date(timeIntervalSince1970: 784_111_777)

    let server: MockServer
    let kind: TransportKind
    let clock: TestClock
    let cache: ResponseCache
    let client: APIClient
    let node: Node

    /// A stub: `path` answered by `responses` in turn (the last repeated),
    /// each `(status, fields, body)`; `Date` is added unless given. `when`
    /// adds request-header matchers (`"absent"` or a value to equal), and
    /// `method` a method to match.
    struct Stub: Sendable {
        var path: String
        var method: String?
        var when: [String: String] = [:]
        var responses: [(status: Int, fields: [String: String], body: String)]
        var priority: Int?
        /// A courier-mock fault every response has: its name, and its
        /// `afterBytes` where it takes one.
        var fault: (name: String, afterBytes: Int?)?

        init(
            _ path: String, method: String? = nil, when: [String: String] = [:], priority: Int? = nil,
            _ responses: [(status: Int, fields: [String: String], body: String)]
        ) {
            self.path = path
            self.method = method
            self.when = when
            self.priority = priority
            self.responses = responses
        }

        /// One response, 200 with `fields` and `body`.
        init(_ path: String, _ fields: [String: String], body: String = "v1") {
            self.init(path, [(200, fields, body)])
        }

        /// `v1`, `v2`, … on each request, every one with `fields`.
        static func versions(_ path: String, _ fields: [String: String], count: Int = 6) -> Stub {
            Stub(path, (1...count).map { (200, fields, "v\($0)") })
        }

        var json: [String: Any] {
            var request: [String: Any] = ["urlPath": "/" + path]
            if let method { request["method"] = method }
            if !when.isEmpty {
                request["headers"] = when.mapValues { value -> [String: Any] in
                    value == "absent" ? ["absent": true] : ["equalTo": value]
                }
            }
            var mapping: [String: Any] = [
                "request": request,
                "responses": responses.map { response -> [String: Any] in
                    var fields = response.fields
                    if fields["Date"] == nil { fields["Date"] = CacheLab.date }
                    var json: [String: Any] = [
                        "status": response.status, "headers": fields, "body": response.body,
                    ]
                    if let fault {
                        var named: [String: Any] = ["name": fault.name]
                        if let after = fault.afterBytes { named["afterBytes"] = after }
                        json["fault"] = named
                    }
                    return json
                },
            ]
            if let priority { mapping["priority"] = priority }
            return mapping
        }
    }

    /// Runs `body` with a lab serving `stubs` over `kind`, a `sharing`
    /// cache told of its events by `onEvent`, and a client with `plugins`.
    static func run(
        _ stubs: [Stub], over kind: TransportKind, sharing: CacheSharing = .private,
        plugins: [any Plugin] = [],
        onEvent: (@Sendable (CacheEvent) -> Void)? = nil, _ body: (CacheLab) async throws -> Void
    ) async throws {
        let document = try JSONSerialization.data(withJSONObject: ["mappings": stubs.map(\.json)])
        let parsed = try ContractLoader.parse(Array(document), file: "<cache conformance>")
        try await withMockServer(.init(stubs: parsed)) { server async throws in
            let clock = TestClock(startDate: start)
            let cache = ResponseCache(sharing: sharing, clock: clock, onEvent: onEvent)
            var configuration = APIClient.Configuration(
                transport: kind.transport, plugins: plugins, clock: clock)
            configuration.cache = cache
            configuration.timeout = hangGuard
            let lab = CacheLab(
                server: server, kind: kind, clock: clock, cache: cache,
                client: APIClient(configuration: configuration),
                node: Node("lab", baseURL: "http://127.0.0.1:\(server.port)"))
            try await body(lab)
            await cache.settle()
        }
    }

    /// The endpoint for `path` (no leading slash), in `read` mode, with `fields`.
    func endpoint(
        _ path: String, method: HTTPRequest.Method = .get, _ fields: HTTPFields = [:],
        read: CacheReadMode = .http, validation: Validation? = nil,
        adjust: (@Sendable (inout CachePolicy) -> Void)? = nil
    ) -> Endpoint<RawResponse> {
        var endpoint = Endpoint<RawResponse>(Route(method, RoutePath(stringLiteral: path)), on: node)
            .adding(headers: fields).cache(read, adjust)
        if let validation { endpoint.spec.validation = validation }
        return endpoint
    }

    /// Sends `endpoint` and returns the reply, or throws what the call threw.
    @discardableResult
    func send(_ endpoint: Endpoint<RawResponse>) async throws(CourierError) -> Reply<RawResponse> {
        try await client.response(endpoint)
    }

    /// GETs `path` with `fields`: the body's text, and whether storage answered.
    func get(_ path: String, _ fields: HTTPFields = [:]) async throws -> (body: String, stored: Bool) {
        let reply = try await send(endpoint(path, fields))
        await cache.settle()
        return (String(decoding: reply.model.body.bytes ?? [], as: UTF8.self), reply.attempts == 0)
    }

    /// The requests for `path` that reached the server.
    func requests(_ path: String) -> [RecordedRequest] {
        server.journal.entries.map(\.request).filter { $0.path == "/" + path }
    }

    /// Moves the cache's clock on.
    func advance(_ seconds: Int) { clock.advance(by: .seconds(seconds)) }

    /// Fails the check with `what` unless GETting `path` fails with a
    /// response of `status` — or, for `nil`, with no response at all.
    func requireFailure(_ path: String, _ fields: HTTPFields = [:], status: Int?, _ what: String) async throws
    {
        do {
            let served = try await get(path, fields)
            throw Unmet("\(what): \(served)")
        } catch let error as CourierError {
            try require(error.response?.statusCode == status, "\(error)")
        }
    }

    /// Fails the check with `message` unless `condition` holds.
    func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw Unmet(message()) }
    }
}

/// A requirement a check found unmet.
struct Unmet: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension HTTPFields {
    /// Fields from name–value pairs (for names `HTTPField.Name` has no constant for).
    static func named(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return fields
    }
}
