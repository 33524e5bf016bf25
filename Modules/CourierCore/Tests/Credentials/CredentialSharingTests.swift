import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

@testable import CourierCore

/// Two principals whose credential travels in a field other than
/// `Authorization`, through the ways a call is shared in CourierCore:
/// neither may be served the other's response.
struct CredentialSharingTests {
    static let endpoint = Endpoint<RawResponse>(.get("items"), on: .api).coalesced()

    static func start(_ client: APIClient, _ endpoint: Endpoint<RawResponse>)
        -> Task<Result<Reply<RawResponse>, CourierError>, Never>
    {
        Task {
            do throws(CourierError) {
                return .success(try await client.response(endpoint))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Every standard credential field a request can carry (not
    /// `Proxy-Authorization`, a proxy's, which no request is sent with), and
    /// one the app declares on its client in a spelling of its own: two
    /// principals' concurrent calls of one coalesced endpoint are two exchanges.
    @Test(arguments: [
        "Authorization", "Cookie", "X-API-Key", "X-Auth-Token", "API-Key", "X-Amz-Security-Token",
        "X-Tenant-Secret",
    ])
    func twoPrincipalsNeverShareAnExchange(field: String) async throws {
        let name = try #require(HTTPField.Name(field))
        let transport = HeldTransport()
        var configuration = APIClient.Configuration(transport: transport)
        configuration.credentialFields = CredentialFields.standard.declaring(["x_tenant_secret"])
        let client = APIClient(configuration: configuration)
        let alice = Self.start(client, Self.endpoint.adding(headers: [name: "alice-secret"]))
        let bob = Self.start(client, Self.endpoint.adding(headers: [name: "bob-secret"]))
        // Had Bob joined Alice's exchange, only one request would arrive:
        // this waits for two, or the joined exchange (which fails the test).
        try await waitUntil {
            transport.arrivals.count == 2
                || client.services.inFlight.callersInFlight == 2
                    && client.services.inFlight.count == 1
        }
        #expect(transport.arrivals.count == 2, "\(field): one exchange for two principals")
        for held in transport.heldHeaders {
            transport.answer("/v1/items", with: .json(#"{"for":"\#(held[name] ?? "?")"}"#))
        }
        let aliceReply = try await alice.value.get()
        let bobReply = try await bob.value.get()
        #expect(aliceReply.model.body.bytes == Array(#"{"for":"alice-secret"}"#.utf8))
        #expect(bobReply.model.body.bytes == Array(#"{"for":"bob-secret"}"#.utf8))
    }
}
