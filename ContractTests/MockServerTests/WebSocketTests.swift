import CourierMockServer
import NIOCore
import NIOWebSocket
import Testing

/// courier-mock speaks WebSocket: a stub's script is played on the upgraded
/// connection — messages sent, expected and answered, echoes, pings
/// answered, the close handshake — each frame in the journal; a request
/// that does not ask to upgrade is refused; the faults misbehave as named.
struct WebSocketTests {
    static func server(_ script: String) throws -> MockServer.Configuration {
        MockServer.Configuration(
            stubs: try stubs(
                #"{"mappings": [{"request": {"urlPath": "/ws"}, "response": {"webSocket": \#(script)}}]}"#))
    }

    /// Every frame the server sends until it closes (or the client's `then` runs).
    static func frames(
        _ channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, send: [WebSocketFrame] = [],
        until stop: (WebSocketFrame) -> Bool = { $0.opcode == .connectionClose }
    ) async throws -> [WebSocketFrame] {
        try await channel.executeThenClose { inbound, outbound in
            for frame in send { try await outbound.write(frame) }
            var seen: [WebSocketFrame] = []
            for try await frame in inbound {
                seen.append(frame)
                if stop(frame) { break }
            }
            return seen
        }
    }

    static func text(_ frame: WebSocketFrame) -> String? {
        String(validating: Array(frame.unmaskedData.readableBytesView), as: UTF8.self)
    }

    @Test func aScriptIsPlayedAndJournaled() async throws {
        let script = #"""
            {"subprotocols": ["chat.v2", "chat.v1"],
             "steps": [{"send": {"text": "welcome"}},
                       {"expect": {"text": {"matches": "hello .*"}}, "answer": [{"text": "hi"}, {"binary": "AAEC"}]},
                       {"echo": 1},
                       {"close": {"code": 4001, "reason": "done"}}]}
            """#
        try await withMockServer(try Self.server(script)) { server async throws in
            guard
                case .upgraded(let channel, let chosen) = try await WebSocketTestClient.connect(
                    port: server.port, path: "/ws", subprotocols: ["chat.v1", "chat.v2"])
            else {
                Issue.record("not upgraded")
                return
            }
            #expect(chosen == "chat.v2")  // the server's preference among those offered
            let frames = try await Self.frames(
                channel,
                send: [WebSocketTestClient.text("hello there"), WebSocketTestClient.text("again")])
            #expect(frames.map(\.opcode) == [.text, .text, .binary, .text, .connectionClose])
            #expect(frames.prefix(2).map(Self.text) == ["welcome", "hi"])
            #expect(Array(frames[2].unmaskedData.readableBytesView) == [0, 1, 2])
            #expect(Self.text(frames[3]) == "again")
            #expect(Array(frames[4].unmaskedData.readableBytesView) == [0x0F, 0xA1] + Array("done".utf8))
            let entry = try #require(server.journal.entries.first { $0.request.path == "/ws" })
            #expect(entry.status == 101)
            let recorded = entry.webSocketFrames ?? []
            #expect(recorded.map(\.direction) == ["out", "in", "out", "out", "in", "out", "out"])
            #expect(recorded.last?.closeCode == 4001 && recorded.last?.text == "done")
        }
    }

    @Test func pingsAreAnsweredAndCloseIsEchoed() async throws {
        try await withMockServer(try Self.server(#"{"then": "hold"}"#)) { server async throws in
            let channel = try await WebSocketTestClient.open(port: server.port, path: "/ws")
            let frames = try await Self.frames(
                channel,
                send: [
                    WebSocketTestClient.frame(.ping, Array("p1".utf8)),
                    WebSocketTestClient.frame(.connectionClose, [0x03, 0xE8]),
                ])
            #expect(frames.map(\.opcode) == [.pong, .connectionClose])
            #expect(Self.text(frames[0]) == "p1")
            #expect(Array(frames[1].unmaskedData.readableBytesView) == [0x03, 0xE8])
        }
    }

    @Test func aRequestThatDoesNotAskToUpgradeIsRefused() async throws {
        try await withMockServer(try Self.server(#"{}"#)) { server async throws in
            let plain = try await RawClient.send(port: server.port, "/ws")
            #expect(plain.status == 426 && plain.header("Upgrade") == "websocket")
            let oldVersion = try await RawClient.send(
                port: server.port, "/ws",
                headers: [
                    ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "8"),
                    ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
                ])
            #expect(oldVersion.status == 426 && oldVersion.header("Sec-WebSocket-Version") == "13")
        }
    }

    /// RFC 6455 §1.3's own example: the key `dGhlIHNhbXBsZSBub25jZQ==`.
    @Test func theAcceptKeyIsTheRFCs() async throws {
        try await withMockServer(try Self.server(#"{}"#)) { server async throws in
            let exchange = try await RawClient.exchange(
                port: server.port,
                RawClient.request(
                    "GET", "/ws",
                    headers: [
                        ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13"),
                        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
                    ], close: false), stopAfter: 1)
            let head = String(decoding: exchange.bytes, as: UTF8.self)
            #expect(head.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
            #expect(head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
        }
    }

    @Test func faultsMisbehaveAsNamed() async throws {
        let script = #"""
            {"steps": [{"fault": "invalidUTF8"},
                       {"fault": {"name": "fragmented", "text": "abcdef", "fragments": 3}},
                       {"fault": {"name": "oversizedFrame", "bytes": 70000}},
                       {"expect": {"text": "go"}},
                       {"fault": {"name": "dropMidFrame", "bytes": 300}}]}
            """#
        try await withMockServer(try Self.server(script)) { server async throws in
            let channel = try await WebSocketTestClient.open(port: server.port, path: "/ws")
            // The half frame never decodes: the stream ends (EOF, or an
            // error for the truncated frame); what came before is kept.
            // (The drop waits for "go": a server that closes at once can
            // end the connection before the client's upgrade is done.)
            let frames = try await channel.executeThenClose { inbound, outbound in
                var seen: [WebSocketFrame] = []
                do {
                    for try await frame in inbound {
                        seen.append(frame)
                        if seen.count == 7 { try await outbound.write(WebSocketTestClient.text("go")) }
                    }
                } catch {
                    // The truncated frame.
                }
                return seen
            }
            let opcodes = frames.map(\.opcode)
            try #require(frames.count >= 7, "\(opcodes)")
            #expect(opcodes.prefix(7) == [.text, .text, .ping, .continuation, .ping, .continuation, .binary])
            #expect(Array(frames[0].unmaskedData.readableBytesView) == [0x68, 0xC3, 0x28, 0xFF])
            #expect(frames.count > 6 && frames[6].unmaskedData.readableBytes == 70_000)
            #expect(frames.dropFirst(7).allSatisfy { $0.opcode != .connectionClose })
        }
    }

    @Test func noPongStopsAnsweringPings() async throws {
        try await withMockServer(
            try Self.server(#"{"steps": [{"fault": "noPong"}, {"send": {"text": "quiet"}}], "then": "hold"}"#)
        ) {
            server async throws in
            let channel = try await WebSocketTestClient.open(port: server.port, path: "/ws")
            let frames = try await Self.frames(
                channel,
                send: [
                    WebSocketTestClient.frame(.ping, Array("p".utf8)),
                    WebSocketTestClient.frame(.connectionClose, [0x03, 0xE8]),
                ])
            #expect(frames.map(\.opcode) == [.text, .connectionClose])
        }
    }

    @Test func anUnmaskedClientFrameIsAProtocolError() async throws {
        try await withMockServer(try Self.server(#"{"then": "hold"}"#)) { server async throws in
            let channel = try await WebSocketTestClient.open(port: server.port, path: "/ws")
            let unmasked = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "plain"))
            let frames = try await Self.frames(channel, send: [unmasked])
            #expect(frames.last.map { Array($0.unmaskedData.readableBytesView.prefix(2)) } == [0x03, 0xEA])
        }
    }
}
