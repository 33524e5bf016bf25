import CourierCore
import CourierOpenAPI
import CourierPlugins
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import ShopOpenAPI
import Testing

/// `shop.json` through the client swift-openapi-generator made from
/// `OpenAPI/ShopAPI/openapi.yaml`: every operation goes through Courier —
/// its token plugin, its retry policy, its transport — and every answer,
/// 4xx included, comes back as the generated client's own cases.
struct OpenAPIContracts {
    /// The session token, once logged in.
    final class Token: Sendable {
        private let value = NIOLockedValueBox("")
        var current: String { value.withLockedValue { $0 } }
        func set(_ token: String) { value.withLockedValue { $0 = token } }
    }

    static func shop(
        _ kind: ContractTransport, _ server: ContractServer, token: Token, retryPolicy: RetryPolicy = .never,
        clock: TestClock = TestClock()
    ) throws -> Client {
        let courier = makeClient(
            kind, retryPolicy: retryPolicy, clock: clock,
            plugins: [AccessTokenPlugin { _, _ in token.current }])
        let transport = CourierClientTransport(client: courier) { operation, endpoint in
            operation == "login" ? endpoint.withoutAuthentication() : endpoint
        }
        let url = try #require(URL(string: server.baseURL + "/shop"))
        return Client(serverURL: url, transport: transport)
    }

    @Test(arguments: ContractTransport.allCases)
    func aGeneratedClientCallsThroughCourier(kind: ContractTransport) async throws {
        try await contract("openapi: a generated client's operations go through Courier's plugins", kind) {
            try await ContractServer.with("shop.json") { server in
                let token = Token()
                let shop = try Self.shop(kind, server, token: token)
                let session = try await shop.login(body: .json(.init(user: "ada", password: "s3cr3t"))).ok
                    .body.json
                check(session.code == 0 && session.data?.token == "tok-5f2c9a", "logged in: \(session)")
                token.set(session.data?.token ?? "")
                let profile = try await shop.getProfile().ok.body.json.data
                check(profile?.name == "Ada Lovelace", "profile \(String(describing: profile))")
                let page = try await shop.listOrders(query: .init(page: 1, size: 3)).ok.body.json.data
                check(
                    page?.items.map(\.id) == [41, 42, 43] && page?.nextPage == 2,
                    "page \(String(describing: page))")
                let order = try await shop.getOrder(path: .init(id: 42)).ok.body.json
                check(order.code == 4003, "the envelope's business code reaches the caller: \(order)")
                let journal = try await server.exchanges()
                journal.expectOrder(["shop-login", "shop-me", "shop-orders-page-1", "shop-order-42"])
                journal.expectHeader("Authorization", .absent, on: "shop-login")
                journal.expectHeader("Authorization", .equals("Bearer tok-5f2c9a"), on: "shop-me")
                let query = journal.all.first { $0.stubID == "shop-orders-page-1" }?.target
                check(
                    query?.hasSuffix("/shop/orders?page=1&size=3") == true,
                    "query as generated: \(query ?? "none")")
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func aRefusedCallIsTheClientsDocumentedCase(kind: ContractTransport) async throws {
        try await contract("openapi: a 401 is the generated client's .unauthorized, not a thrown error", kind)
        {
            try await ContractServer.with("shop.json") { server in
                let shop = try Self.shop(kind, server, token: Token())
                switch try await shop.getProfile() {
                case .unauthorized(let refusal):
                    let body = try refusal.body.json
                    check(body.code == 4010 && body.msg == "log in first", "the 401's body: \(body)")
                default:
                    check(false, "an anonymous profile was not refused")
                }
                try await server.exchanges().expectCount("shop-me-anonymous", .exactly(1))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func courierRetriesUnderTheGeneratedClient(kind: ContractTransport) async throws {
        try await contract(
            "openapi: Courier's retry policy takes a 502 page and a 503 Retry-After to the 200", kind
        ) {
            try await ContractServer.with("shop.json") { server in
                let clock = TestClock()
                let shop = try Self.shop(
                    kind, server, token: Token(), retryPolicy: RetryPolicy(maxAttempts: 3, jitter: .none),
                    clock: clock)
                let products = try await shop.listRecommendations().ok.body.json.data
                check(
                    products?.map(\.title) == ["Swift on Linux"], "products \(String(describing: products))")
                check(clock.sleeps.count == 2 && clock.sleeps.last == .seconds(1), "waited \(clock.sleeps)")
                try await server.exchanges().expectCount("shop-recommendations", .exactly(3))
            }
        }
    }
}
