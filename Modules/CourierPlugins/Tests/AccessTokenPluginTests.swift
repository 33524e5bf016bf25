import CourierCodable
@_spi(Locking) import CourierCore
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierPlugins

struct AccessTokenPluginTests {
    static func client(_ origin: Origin, _ plugin: AccessTokenPlugin, retry: RetryPolicy = .never)
        -> APIClient
    {
        APIClient(
            transport: origin.transport, decoder: .codable, plugins: [plugin], retryPolicy: retry,
            clock: TestClock())
    }

    @Test func eachEndpointGetsItsScheme() async throws {
        let origin = Origin()
        let plugin = AccessTokenPlugin { type, _ in "token-for-\(type)" }
        let client = Self.client(origin, plugin)
        let user = Endpoint<User>(.get("me"), on: .api)
        _ = try await client.send(user)
        _ = try await client.send(user.authorization(.basic))
        _ = try await client.send(user.authorization(.custom("Token")))
        _ = try await client.send(user.authorization(.none))
        _ = try await client.send(user.withoutAuthentication())
        #expect(
            origin.requests.map { $0.head.headerFields[.authorization] } == [
                "Bearer token-for-Bearer", "Basic token-for-Basic", "Token token-for-Token", nil, nil,
            ])
    }

    @Test func basicCredentialsAreBase64OfUserColonPassword() {
        #expect(
            AuthorizationType.basicCredentials(user: "Aladdin", password: "open sesame")
                == "QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    @Test func theTokenIsAskedForOnEveryAttempt() async throws {
        let origin = Origin { _, number in number == 1 ? .status(503) : .json(#"{"id": 7, "name": "Ada"}"#) }
        let count = Locked(0)
        let plugin = AccessTokenPlugin { _, _ in
            count.withLock { value in
                value += 1
                return "t\(value)"
            }
        }
        _ = try await Self.client(origin, plugin, retry: .standard).send(Endpoint<User>(.get("me"), on: .api))
        #expect(origin.requests.map { $0.head.headerFields[.authorization] } == ["Bearer t1", "Bearer t2"])
    }

    /// A token source that switches users between the plugin's declaration
    /// (which keys a shared call) and its `prepare`: the call fails closed,
    /// nothing is sent, and the next call is not answered from it.
    @Test func aTokenThatChangesAfterItsDeclarationFailsClosed() async throws {
        let origin = Origin()
        let reads = Locked(0)
        let plugin = AccessTokenPlugin { _, _ in
            reads.withLock { count in
                count += 1
                return count == 1 ? "alice" : "bob"
            }
        }
        let shared = Endpoint<User>(.get("me"), on: .api).coalesced()
        let error = await #expect(throws: CourierError.self) {
            try await Self.client(origin, plugin).send(shared)
        }
        #expect(error?.code == .credentialMismatch)
        #expect(error?.thrownBy?.contains("AccessTokenPlugin") == true)
        #expect(
            origin.requests.isEmpty, "sent \(origin.requests.map { $0.head.headerFields[.authorization] })")
    }

    @Test func aTokenWithALineBreakIsRefusedNotSentNotEchoed() async throws {
        let origin = Origin()
        let plugin = AccessTokenPlugin { _, _ in "secret\r\nX-Injected: yes" }
        do {
            _ = try await Self.client(origin, plugin).send(Endpoint<User>(.get("me"), on: .api))
            Issue.record("the call succeeded")
        } catch {
            #expect(error.rootCause.code == .invalidHeader)
            #expect(!error.description.contains("secret"))
        }
        #expect(origin.requests.isEmpty)
    }
}
