import CourierCodable
import CourierCore
import CourierTLS
import CourierWebSocket
import Foundation
import Testing

/// The client against an independent WebSocket server (Debian's
/// python3-websockets): it refuses unmasked client frames, so every echo
/// proves the client masks; it sends a message in fragments with pings
/// between them, which must arrive as one message; it closes with codes of
/// its own; it pings the client, which must answer.
@Suite(.serialized)
struct IndependentWebSocketTests {
    static func open(_ server: IndependentWebSocketServer, _ path: String, _ client: APIClient) async throws
        -> WebSocket
    {
        try await client.webSocket(
            Endpoint<RawResponse>(.get(RoutePath(escaped: path)), on: Node("py", baseURL: server.baseURL)),
            options: .init(pingInterval: nil, subprotocols: ["chat.v1"]))
    }

    /// The first message a connection to `path` says; the connection is then closed.
    static func firstMessage(_ server: IndependentWebSocketServer, _ path: String, _ client: APIClient)
        async throws -> WebSocketMessage?
    {
        let socket = try await open(server, path, client)
        var messages = socket.messages.makeAsyncIterator()
        let first = try await messages.next()
        await socket.close()
        return first
    }

    @Test(arguments: WebSocketColumn.allCases)
    func theClientSpeaksRFC6455WithAnotherImplementation(_ column: WebSocketColumn) async throws {
        try await withIndependentWebSocketServer { server in
            try await column.withClient { client in

                // Masked frames (the server refuses others), text and binary, a subprotocol.
                let echo = try await Self.open(server, "/echo", client)
                #expect(echo.subprotocol == "chat.v1")
                var echoed = echo.messages.makeAsyncIterator()
                try await echo.send(text: "héllo")
                #expect(try await echoed.next() == .text("héllo"))
                let bytes = (0..<300).map { UInt8($0 % 256) }
                try await echo.send(.binary(bytes))
                #expect(try await echoed.next() == .binary(bytes))
                await echo.close()
                #expect(try await echoed.next() == nil)

                // Fragments with pings between them: one message.
                #expect(
                    try await Self.firstMessage(server, "/fragmented", client) == .text("frag1-frag2-frag3"))
                #expect(
                    try await Self.firstMessage(server, "/binary", client)
                        == .binary((0..<256).map { UInt8($0) }))
                // The server's ping is answered by the client.
                #expect(try await Self.firstMessage(server, "/ping", client) == .text("pong received"))

                // The server's own close codes.
                let normal = try await Self.open(server, "/close/1000", client)
                var normalMessages = normal.messages.makeAsyncIterator()
                #expect(try await normalMessages.next() == nil)
                #expect(normal.peerClose == WebSocketClose(code: 1000, reason: "bye"))
                let kicked = try await Self.open(server, "/close/4001", client)
                do {
                    for try await _ in kicked.messages {}
                    Issue.record("a 4001 close ended the messages normally")
                } catch {
                    let failure = (error as? CourierError)?.underlying as? WebSocketFailure
                    #expect(failure?.kind == .closedByPeer)
                    #expect(failure?.close == WebSocketClose(code: 4001, reason: "bye"))
                }
            }
        }
    }

    /// The frame-count limit against another implementation's fragments: a
    /// message in three frames with a limit of two ends the connection with
    /// `tooManyFrames` (and 1009), not a message.
    @Test(arguments: WebSocketColumn.allCases)
    func aMessageInTooManyFramesIsRefused(_ column: WebSocketColumn) async throws {
        try await withIndependentWebSocketServer { server in
            try await column.withClient { client in
                let fragmented = try await client.webSocket(
                    Endpoint<RawResponse>(.get("fragmented"), on: Node("py", baseURL: server.baseURL)),
                    options: .init(maxFrameCount: 2, pingInterval: nil))
                do {
                    for try await message in fragmented.messages {
                        Issue.record("a message in three frames came through a limit of two: \(message)")
                    }
                    Issue.record("the messages ended without the limit's failure")
                } catch {
                    let failure = (error as? CourierError)?.underlying as? WebSocketFailure
                    #expect(failure?.kind == .tooManyFrames)
                    #expect(failure?.close?.code == 1009)
                }
            }
        }
    }

    /// Backpressure, proven from the server's side of the socket: a reader
    /// that takes nothing makes the transport stop reading the socket, so
    /// the client's TCP receive window closes and stays closed, and the
    /// server is held back (it says "held I" once its kernel has reported
    /// the zero window for five looks in a row with nothing moving) long
    /// before it could write `count` messages: four times what loopback
    /// TCP's largest buffers hold. A transport that read on would let the
    /// server write every message ("done N" first). Then every message
    /// arrives, in order.
    @Test(arguments: WebSocketColumn.allCases)
    func aReaderThatTakesNothingHoldsTheServerBack(_ column: WebSocketColumn) async throws {
        let size = 65_536
        // What loopback TCP may hold between the two sockets: the largest
        // buffers autotuning may reach (on a loaded machine the server was
        // seen writing up to twice that before the window stayed closed).
        let kernel =
            Self.lastNumber(in: "/proc/sys/net/ipv4/tcp_rmem")
            + Self.lastNumber(in: "/proc/sys/net/ipv4/tcp_wmem")
        let count = 4 * kernel / size + 64
        try await withIndependentWebSocketServer { server in
            try await column.withClient { client in
                let status = try await Self.open(server, "/flood-status", client)
                let flood = try await client.webSocket(
                    Endpoint<RawResponse>(
                        .get(RoutePath(escaped: "/flood/\(count)/\(size)")),
                        on: Node("py", baseURL: server.baseURL)),
                    options: .init(maxMessageSize: size, pingInterval: nil, bufferedMessages: 4))
                try await flood.send(text: "go")
                var reports = status.messages.makeAsyncIterator()
                let first = try await reports.next()
                guard case .text(let report)? = first, report.hasPrefix("held ") else {
                    Issue.record(
                        "the server was not held back by a reader that took nothing: \(String(describing: first))"
                    )
                    return
                }
                var index: UInt32 = 0
                for try await message in flood.messages {
                    guard case .binary(let bytes) = message, bytes.count == size else {
                        Issue.record("message \(index) is not \(size) bytes")
                        break
                    }
                    #expect(bytes.prefix(4).reduce(0) { $0 << 8 | UInt32($1) } == index)
                    index += 1
                    if index == count { break }
                }
                #expect(index == count)
                #expect(try await reports.next() == .text("done \(count)"))
                await flood.close()
                await status.close()
            }
        }
    }

    /// The last number of a `/proc` file (`tcp_rmem`'s maximum).
    static func lastNumber(in path: String) -> Int {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) } ?? 0
    }

    /// wss: the handshake goes out with the transport's TLS settings — a
    /// private CA trusted by configuration opens the connection and carries
    /// messages; without it the certificate is refused with a typed `.tls`
    /// failure, nothing upgraded.
    @Test(arguments: WebSocketColumn.allCases)
    func wssTrustsWhatTheTransportTrusts(_ column: WebSocketColumn) async throws {
        let fixture = try await TLSFixture.make()
        defer { fixture.remove() }
        try await withIndependentWebSocketServer(tls: fixture) { server in
            #expect(server.baseURL.hasPrefix("https://"))
            try await column.withClient(tls: TLSSettings(caBundlePath: fixture.caPath)) { client in
                let echo = try await Self.open(server, "/echo", client)
                var echoed = echo.messages.makeAsyncIterator()
                try await echo.send(text: "over TLS")
                #expect(try await echoed.next() == .text("over TLS"))
                await echo.close()
            }
            try await column.withClient { client in
                do {
                    _ = try await Self.open(server, "/echo", client)
                    Issue.record("a certificate from an untrusted CA was accepted")
                } catch {
                    let failure = error as? CourierError
                    #expect(failure?.code == .transport)
                    #expect((failure?.underlying as? TransportError)?.code == .tls)
                }
            }
        }
    }
}
