// courier-demo: a client for a small fictional shop, over CourierCurl,
// against the mock server (`scripts/demo` starts one with the contracts).
//
// Usage: courier-demo BASE_URL    e.g. http://127.0.0.1:8080/shop

import Courier
import CourierCache
import CourierPlugins
import Foundation
import Logging

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(
        Data("usage: courier-demo BASE_URL (e.g. http://127.0.0.1:8080/shop)\n".utf8))
    exit(2)
}
let api = ShopAPI(node: .shop(CommandLine.arguments[1]))
let token = BearerToken()
/// A client of the shop: the session token added by an interceptor, three
/// attempts, every attempt logged by CourierPlugins' LoggingPlugin at `level`.
func shopClient(logging level: Logger.Level = .info) -> APIClient {
    APIClient(
        transport: CurlTransport.shared, decoder: .codable, callInterceptors: [token],
        plugins: [LoggingPlugin(logger: demoLogger(level))],
        retryPolicy: RetryPolicy(maxAttempts: 3, backoff: .exponential(initial: .milliseconds(200))),
        clock: AnnouncingClock())
}
let client = shopClient()

/// Runs one step: prints its title, the attempts (LoggingPlugin), then the outcome and the time it took.
@MainActor
func step<Model: Sendable>(
    _ number: Int, _ title: String, _ endpoint: Endpoint<Model>, through caller: APIClient = client,
    show: (Model) -> String
) async -> Model? {
    print("\n\(number). \(title) — \(endpoint.spec.route)")
    let start = ContinuousClock.now
    do {
        let reply = try await caller.response(endpoint)
        let attempts = reply.attempts == 1 ? "1 attempt" : "\(reply.attempts) attempts"
        print("   ✓ \(show(reply.model))  (\(attempts), \(Format.duration(ContinuousClock.now - start)))")
        return reply.model
    } catch {
        print("   ✗ \(Format.failure(error))  (\(Format.duration(ContinuousClock.now - start)))")
        return nil
    }
}

print("Courier demo: CourierCurl against \(CommandLine.arguments[1])")

_ = await step(1, "Who am I, before logging in", api.me) { "\($0.name)" }

let session = await step(
    2, "Log in, logged at trace: the request as a curl command, the password masked",
    api.login(user: "ada", password: "lovelace"), through: shopClient(logging: .trace),
    show: { "a session token of \($0.token.count) characters" })
if let session { token.set(session.token) }

_ = await step(
    3, "Profile, with the token added by an interceptor", api.me, through: shopClient(logging: .debug)
) {
    "\($0.name) <\($0.email)>, plan \($0.plan)"
}

print("\n4. Orders, walked page by page — \(api.orders.spec.route)")
let pagination = Pagination<OrderPage<Order>>.pageNumbers(
    size: 3, count: { $0.items.count }, isLast: { $0.model.nextPage == nil })
do {
    for try await page in client.pages(api.orders, by: pagination) {
        let orders = page.model.items.map { "#\($0.id) \(Format.money($0.total)) \($0.status)" }
        print("   ✓ \(page.position): \(orders.joined(separator: ", "))")
    }
} catch {
    print("   ✗ \(Format.failure(error))")
}

_ = await step(5, "Recommendations: a flaky endpoint, retried", api.recommendations) { products in
    products.map { "\($0.title) \(Format.money($0.price))" }.joined(separator: ", ")
}

_ = await step(6, "Someone else's order: a business error", api.order(id: 42)) { "order #\($0.id)" }

print("\n7. The session expires: five calls at once, one token refresh — \(api.cart.spec.route)")
if let session {
    let refresher = SessionRefresher(api: api)
    let authenticator = Authenticator(refresher, for: [api.node], credential: session.token)
    let authenticated = APIClient(
        transport: CurlTransport.shared, decoder: .codable, callInterceptors: [authenticator],
        plugins: [LoggingPlugin(logger: demoLogger())])
    let carts = await withTaskGroup(of: Result<Cart, CourierError>.self) { group in
        for _ in 0..<5 {
            group.addTask {
                do throws(CourierError) { return .success(try await authenticated.send(api.cart)) } catch {
                    return .failure(error)
                }
            }
        }
        var served = 0
        for await cart in group { if case .success = cart { served += 1 } }
        return served
    }
    let served = carts
    let renewed = authenticator.credential != session.token ? "a new token" : "the same token"
    print("   ✓ \(served) of 5 carts served; \(refresher.refreshes) refresh; now using \(renewed)")
}

print(
    "\n8. The catalogue, cached: the stored copy at once, then the network's (alsoNetworkWithCallback) — "
        + "\(api.catalogue.spec.route)")
let cache = ResponseCache()
var cachedConfiguration = APIClient.Configuration(
    transport: CurlTransport.shared, decoder: .codable, plugins: [LoggingPlugin(logger: demoLogger())])
cachedConfiguration.cache = cache
let cachedClient = APIClient(configuration: cachedConfiguration)
let catalogue = api.catalogue.cache(.alsoNetworkWithCallback)
for visit in ["first visit, nothing stored", "second visit"] {
    print("   \(visit):")
    for await delivery in cachedClient.deliveries(catalogue) {
        switch delivery.result {
        case .success(let reply):
            let products = reply.model.map { "\($0.title) \(Format.money($0.price))" }.joined(separator: ", ")
            let how = reply.attempts == 0 ? "no request" : "\(reply.attempts) attempt"
            print("   ✓ from the \(delivery.source): \(products)  (\(how))")
        case .failure(let error):
            print("   ✗ from the \(delivery.source): \(Format.failure(error))")
        }
    }
}
await cache.settle()

/// Step 9: an order's status as server-sent events, across the drop the server makes.
func followOrder(_ endpoint: Endpoint<RawResponse>) async {
    print("\n9. Order 7, live: server-sent events that drop once and resume — \(endpoint.spec.route)")
    let start = ContinuousClock.now
    var feed = client.events(endpoint).makeAsyncIterator()
    var lastID = ""
    var connection = 0
    do throws(CourierError) {
        while let event = try await feed.next() {
            if connection != 0, feed.connections != connection {
                print("   ↻ reconnected after the drop, sending Last-Event-ID: \(lastID)")
            }
            connection = feed.connections
            lastID = event.lastEventID
            print("   ● \(event.data)  (event \(event.lastEventID))")
        }
        print(
            "   ✓ every event once, over \(feed.connections) connections; the server's 204 ended the stream  "
                + "(\(Format.duration(ContinuousClock.now - start)))")
    } catch {
        print("   ✗ \(Format.failure(error))")
    }
}
await followOrder(api.orderStatus(id: 7))

await CurlTransport.shared.shutdown()
