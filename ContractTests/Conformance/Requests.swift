@_spi(Transport) import CourierCore
import CourierMockServer
import CourierTesting
import HTTPTypes
import Testing

/// A deadline for calls that must not time out: a hang guard only, never
/// reached by a working test, however loaded the machine (a 60 s default
/// can pass on a 2-core machine under ThreadSanitizer and `stress`).
let hangGuard: Duration = .seconds(600)

extension TransportOptions {
    /// Options whose only deadline is the ``hangGuard``.
    static var guarded: TransportOptions { TransportOptions(timeout: hangGuard) }
}

/// A request to the mock server on loopback.
func request(
    _ server: MockServer, _ path: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:],
    body: RequestBody? = nil
) -> OutgoingRequest {
    OutgoingRequest(
        head: HTTPRequest(
            method: method, scheme: "http", authority: "127.0.0.1:\(server.port)", path: path,
            headerFields: headers),
        body: body)
}

/// Runs `body` and checks that it fails with a ``TransportError`` of `code`.
func expectTransportError<T>(
    _ code: TransportError.Code, _ what: String, _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("\(what) succeeded")
    } catch let error as TransportError {
        #expect(error.code == code, "\(what): \(error)")
    } catch {
        Issue.record("\(what): \(type(of: error)) \(error)")
    }
}

/// Runs `body` with a mock server whose `/stall` never answers, and a task
/// that holds one request there (sent through `send` once the server has it):
/// for filling a transport's only place.
func withHeldRequest<T: Sendable>(
    sending send: @escaping @Sendable (MockServer) async throws -> RawResponse,
    then body: (MockServer, Task<RawResponse, any Error>) async throws -> T
) async throws -> T {
    let stubs = try ContractLoader.parse(
        Array(#"{"id": "s", "request": {"urlPath": "/stall"}, "response": {"fault": "stall"}}"#.utf8),
        file: "<test>")
    return try await withMockServer(.init(stubs: stubs)) { server async throws in
        let holder = Task { try await send(server) }
        _ = try await server.journal.waitFor(1)
        return try await body(server, holder)
    }
}

/// Reads a streamed body of the built-in byte pattern (`/bytes/{n}`): how
/// many bytes came, and whether each chunk's ends match the pattern at its
/// offset — a lost or repeated run of bytes shifts them. (Checking every
/// byte would starve the suite's other tests under ThreadSanitizer.)
func readPattern<Body: AsyncSequence>(_ body: Body) async throws -> (received: Int, intact: Bool)
where Body.Element == [UInt8] {
    var received = 0
    var intact = true
    for try await chunk in body {
        if let first = chunk.first, let last = chunk.last {
            intact =
                intact && first == BuiltinPattern.byte(received)
                && last == BuiltinPattern.byte(received + chunk.count - 1)
        }
        received += chunk.count
    }
    return (received, intact)
}

/// With a transport that has one place (one transfer, or one connection):
/// a request held at `/stall` fills it, a second waits, and cancelling the
/// waiter takes it out of the queue at once; cancelling the holder frees the
/// place for the next request. `load` is the transport's `(active, waiting)`.
func checkACancelledWaiterLeavesTheQueue(
    _ transport: any Transport, load: @escaping () -> (active: Int, waiting: Int)
) async throws {
    let send: @Sendable (MockServer) async throws -> RawResponse = {
        try await transport.send(request($0, "/stall"), options: .guarded)
    }
    try await withHeldRequest(sending: send) { server, holder async throws in
        let waiter = Task { try await transport.send(request(server, "/status/200"), options: .guarded) }
        try await waitUntil { load().waiting > 0 }
        #expect(load() == (active: 1, waiting: 1))
        waiter.cancel()
        await expectTransportError(.cancelled, "a cancelled waiting request") { try await waiter.value }
        try await waitUntil { load().waiting == 0 }
        #expect(load() == (active: 1, waiting: 0))
        holder.cancel()
        await expectTransportError(.cancelled, "the holder") { try await holder.value }
        // The place is free again.
        #expect(try await transport.send(request(server, "/status/204"), options: .guarded).statusCode == 204)
        #expect(server.journal.entries.map(\.request.path) == ["/stall", "/status/204"])
    }
}
