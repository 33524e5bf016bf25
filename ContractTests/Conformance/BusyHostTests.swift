import CourierAsyncHTTPClient
@_spi(Transport) import CourierCore
import CourierCurl
import CourierMockServer
import CourierTesting
import CourierURLSession
import Testing

/// Slow calls that hold connections to one host must not starve the other
/// calls to it: over every transport, a burst goes out while six exchanges
/// (URLSession's per-host limit was six) are held, and a call that finds
/// every allowed connection busy waits for one within its own deadline —
/// failing, if it must, with an error that says it never got one.
struct BusyHostTests {
    /// Six exchanges held at `/stall` (never answered), then a burst of
    /// twenty calls to the same host, each with a 60 s deadline that only
    /// catches a hang: every one must reach the server and come back while
    /// the six are still held. URLSession's session queued them behind its
    /// six connections with their timers running, and failed them all with
    /// `URLError.timedOut` without a byte sent.
    @Test(arguments: TransportKind.allCases)
    func aBurstGoesOutWhileSlowCallsHoldConnections(kind: TransportKind) async throws {
        try await withStallingServer { server async throws in
            try await kind.withFresh { transport async throws in
                let holders = (0..<6).map { index in
                    // Their own deadline outlasts the burst's: what may end them is the cancel below.
                    Task {
                        try await transport.send(
                            request(server, "/stall?\(index)"), options: .init(timeout: .seconds(600)))
                    }
                }
                _ = try await server.journal.waitFor(6) { $0.request.path == "/stall" }
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<20 {
                        group.addTask {
                            try await transport.send(
                                request(server, "/status/200?\(index)"), options: .guarded
                            ).statusCode
                        }
                    }
                    for try await status in group { #expect(status == 200) }
                }
                let burst = server.journal.entries.filter { $0.request.path == "/status/200" }
                #expect(burst.count == 20, "the server's record of the burst")
                for holder in holders { holder.cancel() }
                for holder in holders {
                    await expectTransportError(.cancelled, "a held call") { try await holder.value }
                }
                // Every place is given back once the held exchanges have really ended.
                try await waitUntil { load(of: transport)?.active == 0 }
                #expect(load(of: transport).map { $0 == (active: 0, waiting: 0) } ?? true)
            }
        }
    }

    /// One connection allowed per host and one call holding it: a second
    /// call waits, sends nothing, and when its deadline passes fails with
    /// ``TransportError/Code/connectionUnavailable``; once the holder ends,
    /// the place is free for the next call.
    @Test(arguments: TransportKind.allCases)
    func aCallThatNeverGetsAConnectionSaysSo(kind: TransportKind) async throws {
        try await withStallingServer { server async throws in
            try await kind.withFresh(maxConnectionsPerHost: 1) { transport async throws in
                let holder = Task { try await transport.send(request(server, "/stall"), options: .guarded) }
                _ = try await server.journal.waitFor(1) { $0.request.path == "/stall" }
                // The holder never ends by itself, so this deadline always
                // passes first, however loaded the machine.
                await expectTransportError(.connectionUnavailable, "a call behind a held connection") {
                    try await transport.send(
                        request(server, "/status/201"), options: .init(timeout: .milliseconds(300)))
                }
                #expect(
                    !server.journal.entries.contains { $0.request.path == "/status/201" }, "nothing was sent")
                holder.cancel()
                await expectTransportError(.cancelled, "the holder") { try await holder.value }
                try await waitUntil { load(of: transport)?.active == 0 }
                let next = try await transport.send(
                    request(server, "/status/204"), options: .guarded)
                #expect(next.statusCode == 204)
            }
        }
    }

    /// What a transport reports as `(active, waiting)`, for those that report it.
    private func load(of transport: any Transport) -> (active: Int, waiting: Int)? {
        switch transport {
        case let transport as URLSessionTransport: transport.load
        case let transport as CurlTransport: transport.load
        case let transport as AsyncHTTPClientTransport: transport.load
        default: nil
        }
    }

    /// A mock server whose `/stall` never answers.
    private func withStallingServer(_ body: (MockServer) async throws -> Void) async throws {
        let stubs = try ContractLoader.parse(
            Array(#"{"id": "s", "request": {"urlPath": "/stall"}, "response": {"fault": "stall"}}"#.utf8),
            file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in try await body(server) }
    }
}
