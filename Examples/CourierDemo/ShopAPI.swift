import Courier
import CourierCache

// A small fictional shop API, described once as values. Every response is a
// `{code, msg, data}` envelope where 0 means success.

struct Session: Decodable, Sendable { let token: String }

struct Profile: Decodable, Sendable {
    let id: Int
    let name: String
    let email: String
    let plan: String
}

struct Order: Decodable, Sendable {
    let id: Int
    let total: Double
    let status: String
}

struct OrderPage<Item: Decodable & Sendable>: Decodable, Sendable {
    let items: [Item]
    let nextPage: Int?
}

struct Cart: Decodable, Sendable {
    let items: Int
    let total: Double
}

struct Product: Decodable, Sendable {
    let id: Int
    let title: String
    let price: Double
}

extension Node {
    /// The shop at `baseURL`, with the standard envelope.
    static func shop(_ baseURL: String) -> Node { Node("shop", baseURL: baseURL, envelope: .standard) }
}

/// The shop's endpoints on one node.
struct ShopAPI {
    let node: Node

    func login(user: String, password: String) -> Endpoint<Session> {
        Endpoint(
            .post("login"), on: node, content: .json(["user": .string(user), "password": .string(password)]))
    }

    var me: Endpoint<Profile> { Endpoint(.get("me"), on: node) }

    /// Trades a session token for a fresh one; never itself authenticated.
    func refresh(token: String) -> Endpoint<Session> {
        Endpoint<Session>(.post("token"), on: node, content: .json(["token": .string(token)]))
            .withoutAuthentication()
    }

    var cart: Endpoint<Cart> { Endpoint(.get("cart"), on: node) }

    /// Orders, a page at a time (`client.pages(api.orders, by: .pageNumbers(size: 3, …))`).
    var orders: Endpoint<OrderPage<Order>> { Endpoint(.get("orders"), on: node) }

    var recommendations: Endpoint<[Product]> { Endpoint(.get("recommendations"), on: node) }

    /// The catalogue: public, and worth showing from the cache at once.
    var catalogue: Endpoint<[Product]> { Endpoint(.get("catalogue"), on: node) }

    func order(id: Int) -> Endpoint<Order> { Endpoint(.get("orders/\(id, name: "id")"), on: node) }

    /// An order's status as it changes: server-sent events (`client.events`).
    func orderStatus(id: Int) -> Endpoint<RawResponse> {
        Endpoint(.get("orders/\(id, name: "id")/events"), on: node)
    }
}
