// Exercises CurlTransfer's unretained context pointer on every path that
// ends a transfer — completion, cancellation while libcurl holds the handle,
// cancellation before the engine saw it, a reset connection, and a shutdown
// with transfers in libcurl and in the waiting queue — against a loopback
// server, then releases every transport. Built and run under
// AddressSanitizer by scripts/check-curl-lifetime: a use of a transfer after
// it was freed, or a leaked one, aborts the process. Prints one line and
// exits 0 when every outcome was the expected one.
import Courier
import Foundation

let server = try LoopbackServer.start()
let node = Node("probe", baseURL: "http://127.0.0.1:\(server.port)")

/// Sends `count` requests to `path`, runs `meanwhile` while they are in
/// flight (then cancels them when `cancelling`), and returns each call's
/// outcome in the order sent.
func calls(
    _ count: Int, to path: String, over transport: CurlTransport, cancelling: Bool = false,
    meanwhile: (() async throws -> Void)? = nil
) async throws -> [Result<RawResponse, CourierError>] {
    let client = APIClient(transport: transport, decoder: .codable, retryPolicy: .never)
    let endpoint = Endpoint<RawResponse>(.get(RoutePath(escaped: path)), on: node)
    let tasks = (0..<count).map { _ in
        Task { () -> Result<RawResponse, CourierError> in
            do throws(CourierError) { return .success(try await client.send(endpoint)) } catch {
                return .failure(error)
            }
        }
    }
    try await meanwhile?()
    if cancelling { for task in tasks { task.cancel() } }
    var outcomes: [Result<RawResponse, CourierError>] = []
    for task in tasks { outcomes.append(await task.value) }
    return outcomes
}

/// Progress on standard error, so a hang shows where it is.
func step(_ what: String) {
    FileHandle.standardError.write(Data("curl-lifetime: \(what)\n".utf8))
}

func expect(_ condition: Bool, _ what: String) throws {
    if !condition { throw ProbeFailure(what) }
}

func isCancelled(_ outcome: Result<RawResponse, CourierError>) -> Bool {
    if case .failure(let error) = outcome { return error.code == .cancelled }
    return false
}

var ended = 0
do {
    // Completions, many at once on a few connections.
    let transport = try CurlTransport(configuration: .init(maxConnectionsPerHost: 8))
    step("completions")
    let completed = try await calls(200, to: "ok", over: transport)
    try expect(completed.allSatisfy { (try? $0.get().statusCode) == 200 }, "every /ok call succeeds")
    // Resets: libcurl ends each transfer with an error.
    step("resets")
    let reset = try await calls(32, to: "reset", over: transport)
    try expect(reset.allSatisfy { if case .failure = $0 { true } else { false } }, "every /reset call fails")
    // Cancelled while libcurl holds the handle: 8 requests reached the
    // server (one per connection), 8 more wait in libcurl for a connection.
    step("cancellations in libcurl")
    let held = try await calls(16, to: "hold-cancel", over: transport, cancelling: true) {
        await server.waitForRequests(8, prefix: "/hold-cancel")
    }
    try expect(held.allSatisfy(isCancelled), "every cancelled /hold call ends cancelled")
    // Their answers arrive now: libcurl must not have those transfers any
    // more (a callback would reach a freed one); the next calls make it look.
    server.answerHeld(prefix: "/hold-cancel")
    let after = try await calls(50, to: "ok", over: transport)
    try expect(after.allSatisfy { (try? $0.get().statusCode) == 200 }, "every /ok call after them succeeds")
    // Cancelled at once: most never reach the engine, some are in libcurl.
    step("cancellations at once")
    let early = try await calls(64, to: "hold-early", over: transport, cancelling: true)
    try expect(early.allSatisfy(isCancelled), "every call cancelled at once ends cancelled")
    await transport.shutdown()
    ended += completed.count + reset.count + held.count + after.count + early.count
}
do {
    step("a shutdown with transfers in flight")
    // Shut down with 4 transfers in libcurl and 28 waiting for a place.
    let transport = try CurlTransport(configuration: .init(maxActiveTransfers: 4))
    let shutDown = try await calls(32, to: "hold-shutdown", over: transport) {
        await server.waitForRequests(4, prefix: "/hold-shutdown")
        await transport.shutdown()
    }
    try expect(shutDown.allSatisfy(isCancelled), "every call in flight at shutdown ends cancelled")
    ended += shutDown.count
}
server.stop()
print(
    "curl-lifetime: \(ended) transfers ended (completed, reset, cancelled in libcurl, cancelled early, shut down)"
)
