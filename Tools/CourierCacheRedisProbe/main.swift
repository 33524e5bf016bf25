// A second client process for the Redis store's tests: one instance of a
// fleet. It makes one cached call through a memory tier in front of a shared
// Redis, to an upstream of its own (in process), at the date it is given,
// and prints what happened, so that the tests can prove two processes share
// one cache.
//
//     courier-cache-redis-probe PORT NAME SECONDS_SINCE_1970
//
// The upstream answers {"id": 7, "name": "NAME-<n>"} with ETag "v1" and
// max-age=60, and 304 to a request that names "v1". Prints one line:
// `name=… source=… upstream=<requests> conditional=<true|false>`.
import CourierCache
import CourierCacheRedis
import CourierCodable
@_spi(Locking) import CourierCore
import CourierTesting
import Foundation
import HTTPTypes

struct Profile: Codable, Sendable {
    let id: Int
    let name: String
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let port = Int(arguments[1]), let seconds = Double(arguments[3]) else {
    FileHandle.standardError.write(
        Data("usage: courier-cache-redis-probe PORT NAME SECONDS_SINCE_1970\n".utf8))
    exit(2)
}
let name = arguments[2]

/// The requests that reached this process's upstream.
let requests = Locked<[HTTPRequest]>([])
let upstream = StubTransport { request in
    let number = requests.withLock { all in
        all.append(request.head)
        return all.count
    }
    if request.head.headerFields[.ifNoneMatch] == "\"v1\"" {
        return .status(304, headers: [.eTag: "\"v1\"", .cacheControl: "max-age=60"])
    }
    return .json(
        #"{"id": 7, "name": "\#(name)-\#(number)"}"#, headers: [.eTag: "\"v1\"", .cacheControl: "max-age=60"])
}

let clock = TestClock(startDate: Date(timeIntervalSince1970: seconds))
let store = RedisStore(
    .init(
        endpoint: .tcp(host: "127.0.0.1", port: port), namespace: "fleet", connectTimeout: .seconds(60),
        commandTimeout: .seconds(60)))
let cache = ResponseCache(memoryAndShared: store, clock: clock) { error in
    FileHandle.standardError.write(Data("store: \(error)\n".utf8))
}
var configuration = APIClient.Configuration(transport: upstream, decoder: .codable, clock: clock)
configuration.cache = cache
let client = APIClient(configuration: configuration)
let profile = Endpoint<Profile>(.get("profiles/7"), on: Node("api", baseURL: "https://api.example.com/v1"))
    .cache(.http)

do {
    let reply = try await client.response(profile)
    await cache.settle()
    let sent = requests.withLock { $0 }
    let source = reply.response?.cacheSource.map { "\($0)" } ?? "network"
    let conditional = sent.contains { $0.headerFields[.ifNoneMatch] != nil }
    print("name=\(reply.model.name) source=\(source) upstream=\(sent.count) conditional=\(conditional)")
} catch {
    FileHandle.standardError.write(Data("call failed: \(error)\n".utf8))
    exit(1)
}
