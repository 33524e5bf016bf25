// The Courier demo: a decoded model, a business error and a retried call,
// against a scripted stub server (a later step points it at the mock server).

import Courier
import CourierTesting
import Synchronization

struct User: Decodable, Sendable {
    let id: Int
    let name: String
    let email: String
}

struct Order: Decodable, Sendable {
    let id: Int
    let total: Double
}

extension Node {
    /// Every response from this node is a `{code, msg, data}` envelope where 0 means success.
    static let shop = Node(
        "shop", urls: [.production: "https://shop.example.com/api", .mock: "http://127.0.0.1:8080/api"],
        envelope: .standard)
}

extension Endpoint where Response == User {
    static func user(id: Int) -> Self { Endpoint(.get("users/\(id)"), on: .shop) }
}

extension Endpoint where Response == Order {
    static func order(id: Int) -> Self { Endpoint(.get("orders/\(id)"), on: .shop) }
}

extension Endpoint where Response == [Order] {
    static var recentOrders: Self { Endpoint(.get("orders"), on: .shop, query: ["limit": 2]) }
}

/// Prints each attempt as it happens.
struct ConsoleLog: Plugin {
    func didReceive(_ result: Result<RawResponse, CourierError>, request: HTTPRequest, context: CallContext)
        async
    {
        let outcome =
            switch result {
            case .success(let response): "HTTP \(response.statusCode)"
            case .failure(let error): "\(error.code)"
            }
        print("   attempt \(context.attempt): \(request.method) \(request.path ?? "") → \(outcome)")
    }
}

/// The scripted server: a user, an order the server refuses, and an endpoint
/// that fails twice before it answers.
let flakyCalls = Mutex(0)
let server = StubTransport { request in
    switch request.head.path ?? "" {
    case "/api/users/7":
        return .envelope(
            code: 0, msg: "ok", data: #"{"id":7,"name":"Ada Lovelace","email":"ada@example.com"}"#)
    case "/api/orders/42":
        return .envelope(code: 4003, msg: "order 42 belongs to another account")
    case "/api/orders?limit=2":
        let call = flakyCalls.withLock { count in
            count += 1
            return count
        }
        if call == 1 { return .failure(.connectionReset, "connection reset by peer") }
        if call == 2 { return .status(503, headers: [.retryAfter: "0"]) }
        return .envelope(code: 0, data: #"[{"id":1,"total":9.5},{"id":2,"total":120}]"#)
    default:
        return .status(404)
    }
}

let client = APIClient(
    transport: server, decoder: .codable, plugins: [ConsoleLog()],
    retryPolicy: RetryPolicy(maxAttempts: 3, backoff: .exponential(initial: .milliseconds(50)), jitter: .full)
)

print("1. A decoded model")
let user = try await client.send(.user(id: 7))
print("   → User #\(user.id): \(user.name) <\(user.email)>\n")

print("2. A business error")
do {
    _ = try await client.send(.order(id: 42))
} catch {
    let business = error.businessFailure
    print(
        "   → CourierError.\(error.code) at \(error.stage): code \(business?.code.description ?? "?"), "
            + "\"\(business?.message ?? "")\"\n")
}

print("3. A retried call")
let reply = try await client.response(.recentOrders)
let totals = reply.model.map { "#\($0.id) \($0.total)" }.joined(separator: ", ")
print("   → \(reply.model.count) orders after \(reply.attempts) attempts: \(totals)")
