// One instance of a fleet, for FleetProcessTests: sends `attempts` GETs of
// `path` to `baseURL`, one after another, through a rate limiter whose
// state is on the fleet's Redis (`.fail`: an attempt over the rate fails
// at once), and prints what became of them:
// `sent=… limited=… refused=… other=… shared=…` (`limited`: refused by
// the limiter or an open circuit, nothing sent; `refused`: an error status,
// retried or not).
// Other MODEs replace the limiter (REQUESTS and BURST are then unused):
// `token`: each GET carries a bearer token the fleet fetches once
// (`POST /token` answers `{"access": "…"}`), sealed on Redis for the others;
// `circuit`: a circuit breaker the fleet shares (4 outcomes, half of them
// failures, open it for an hour); `budget`: up to 3 attempts, retries from
// the fleet's budget (20 % of the fleet's calls in the hour, no minimum).
//
// Usage: courier-fleet-probe REDIS_PORT NAMESPACE INSTANCES REQUESTS BURST BASE_URL PATH ATTEMPTS [MODE]
import CourierAuthentication
import CourierCore
import CourierCurl
import CourierFleet
import Foundation
import HTTPTypes

/// The fleet's token: a client-credentials grant from `POST /token`.
struct Token: Codable, Sendable {
    var access: String
}

struct Grant: InitialCredentialProvider {
    let node: Node

    func apply(_ token: Token, to request: inout HTTPRequest) {
        request.headerFields[.authorization] = "Bearer \(token.access)"
    }
    func initialCredential(through client: APIClient) async throws -> Token {
        let answer = try await client.send(Endpoint<RawResponse>(.post("token"), on: node))
        return try JSONDecoder().decode(Token.self, from: Data(answer.body.bytes ?? []))
    }
    func refresh(_ token: Token, through client: APIClient) async throws -> Token {
        try await initialCredential(through: client)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 9 || arguments.count == 10, let redisPort = Int(arguments[1]),
    let instances = Int(arguments[3]),
    let requests = Int(arguments[4]), let burst = Int(arguments[5]), let attempts = Int(arguments[8])
else {
    FileHandle.standardError.write(
        Data(
            "usage: courier-fleet-probe REDIS_PORT NAMESPACE INSTANCES REQUESTS BURST BASE_URL PATH ATTEMPTS [MODE]\n"
                .utf8))
    exit(2)
}
// A generous command timeout: the test counts exactly, and a loaded machine
// must not make an instance decide alone while Redis is up.
let fleet = FleetState(
    .init(
        endpoint: .tcp(host: "127.0.0.1", port: redisPort), namespace: arguments[2],
        expectedInstances: instances, commandTimeout: .seconds(30), connectTimeout: .seconds(30)))
let node = Node("api", baseURL: arguments[6])
var configuration = APIClient.Configuration(transport: CurlTransport.shared, retryPolicy: .never)
switch arguments.count == 10 ? arguments[9] : "rate" {
case "token":
    let key = CredentialSealingKey(Array(repeating: UInt8(42), count: 32))
    let provider = FleetCredentials(
        Grant(node: node), fleet: fleet, scope: "probe",
        storage: key.map { .sealed(with: $0, keptFor: .seconds(3_600)) } ?? .notStored)
    configuration.callInterceptors = [Authenticator(provider, for: [node])]
case "circuit":
    configuration.circuitBreaker = CircuitBreaker(
        .init(
            failureRateThreshold: 0.5, minimumCalls: 4, window: .seconds(3_600), openDuration: .seconds(3_600)
        ),
        fleet: fleet)
case "budget":
    var policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.zero), jitter: .none)
    policy.fleetBudget = FleetRetryBudget(fleet, ratio: 0.2, minimumPerSecond: 0, window: .seconds(3_600))
    configuration.retryPolicy = policy
default:
    configuration.rateLimiter = RateLimiter(
        RateLimit(requests: requests, per: .seconds(3_600), burst: burst), per: .host, whenLimited: .fail,
        store: RedisRateLimitStore(fleet))
}
let client = APIClient(configuration: configuration)
let endpoint = Endpoint<RawResponse>(.get(RoutePath(escaped: arguments[7])), on: node)

var sent = 0
var limited = 0
var refused = 0
var other = 0
for _ in 0..<attempts {
    do {
        _ = try await client.send(endpoint)
        sent += 1
    } catch {
        switch error.code {
        case .rateLimited, .circuitOpen: limited += 1
        case .status, .retriesExhausted: refused += 1
        default:
            other += 1
            FileHandle.standardError.write(Data("\(error)\n".utf8))
        }
    }
}
print("sent=\(sent) limited=\(limited) refused=\(refused) other=\(other) shared=\(fleet.isShared)")
