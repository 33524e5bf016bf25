// One instance of a fleet, for FleetProcessTests: sends `attempts` GETs of
// `path` to `baseURL`, one after another, through a rate limiter whose
// state is on the fleet's Redis (`.fail`: an attempt over the rate fails
// at once), and prints what became of them:
// `sent=… limited=… refused=… other=… shared=…`.
//
// Usage: courier-fleet-probe REDIS_PORT NAMESPACE INSTANCES REQUESTS BURST BASE_URL PATH ATTEMPTS
import CourierCore
import CourierCurl
import CourierFleet
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 9, let redisPort = Int(arguments[1]), let instances = Int(arguments[3]),
    let requests = Int(arguments[4]), let burst = Int(arguments[5]), let attempts = Int(arguments[8])
else {
    FileHandle.standardError.write(
        Data(
            "usage: courier-fleet-probe REDIS_PORT NAMESPACE INSTANCES REQUESTS BURST BASE_URL PATH ATTEMPTS\n"
                .utf8))
    exit(2)
}
// A generous command timeout: the test counts exactly, and a loaded machine
// must not make an instance decide alone while Redis is up.
let fleet = FleetState(
    .init(
        endpoint: .tcp(host: "127.0.0.1", port: redisPort), namespace: arguments[2],
        expectedInstances: instances, commandTimeout: .seconds(30), connectTimeout: .seconds(30)))
var configuration = APIClient.Configuration(transport: CurlTransport.shared, retryPolicy: .never)
configuration.rateLimiter = RateLimiter(
    RateLimit(requests: requests, per: .seconds(3_600), burst: burst), per: .host, whenLimited: .fail,
    store: RedisRateLimitStore(fleet))
let client = APIClient(configuration: configuration)
let endpoint = Endpoint<RawResponse>(
    .get(RoutePath(escaped: arguments[7])), on: Node("api", baseURL: arguments[6]))

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
        case .rateLimited: limited += 1
        case .status: refused += 1
        default:
            other += 1
            FileHandle.standardError.write(Data("\(error)\n".utf8))
        }
    }
}
print("sent=\(sent) limited=\(limited) refused=\(refused) other=\(other) shared=\(fleet.isShared)")
