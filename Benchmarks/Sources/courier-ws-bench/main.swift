// WebSocket round trips: a 16-byte text message sent and its echo awaited,
// one after another, against ws-echo-server (another process, another core),
// through Courier's WebSocket over each transport that has one, beside a raw
// SwiftNIO client (NIOWebSocket's client upgrader, a handler that sends the
// next message from the echo's callback: no tasks, no Courier). CPU is this
// process's (getrusage); rounds are interleaved, medians reported. With
// --window W, W messages go out at once and their W echoes are awaited
// before the next W: many messages in flight rather than one.
// Usage: courier-ws-bench PORT [rounds=7] [--messages N] [--window W]
import AsyncHTTPClient
import BenchSupport
import CourierAsyncHTTPClient
import CourierCore
import CourierCurl
import CourierWebSocket
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

let arguments = Array(CommandLine.arguments.dropFirst())
guard let port = arguments.first.flatMap(Int.init) else {
    fatalError("usage: courier-ws-bench PORT [rounds] [--messages N]")
}
let rounds = arguments.dropFirst().first.flatMap(Int.init) ?? 7
let messages = arguments.firstIndex(of: "--messages").flatMap { Int(arguments[$0 + 1]) } ?? 20_000
let window = max(1, arguments.firstIndex(of: "--window").flatMap { Int(arguments[$0 + 1]) } ?? 1)
let text = String(repeating: "x", count: 16)

/// Sends `count` messages, each after the previous one's echo, on the event loop.
final class EchoDriver: ChannelInboundHandler, @unchecked Sendable {
    // Safe: every member is touched on the channel's event loop only.
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame
    private var left = 0
    /// Echoes still to come of the window sent last.
    private var inWindow = 0
    private var done: EventLoopPromise<Void>?
    private var context: ChannelHandlerContext?
    private let payload: ByteBuffer

    init(text: String) { payload = ByteBuffer(string: text) }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func start(_ count: Int, _ promise: EventLoopPromise<Void>) {
        left = count
        done = promise
        sendWindow()
    }

    /// Sends the next `window` messages (fewer at the end), flushed once.
    private func sendWindow() {
        guard let context else { return }
        inWindow = min(window, left)
        for _ in 0..<inWindow {
            let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: payload)
            context.write(wrapOutboundOut(frame), promise: nil)
        }
        context.flush()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard unwrapInboundIn(data).opcode == .text else { return }
        left -= 1
        inWindow -= 1
        if left == 0 {
            done?.succeed()
        } else if inWindow == 0 {
            sendWindow()
        }
    }
}

/// The raw NIO client: one connection, `count` echoes; returns (wall, CPU) seconds.
func rawNIO(_ count: Int) async throws -> (Double, Double) {
    let driver = EchoDriver(text: text)
    var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")
    head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
    let upgrader = NIOTypedWebSocketClientUpgrader<Bool> { channel, _ in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(driver)
            return true
        }
    }
    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Bool>(
        upgradeRequestHead: head, upgraders: [upgrader]
    ) { channel in channel.eventLoop.makeSucceededFuture(false) }
    let group = MultiThreadedEventLoopGroup.singleton
    let (channel, upgraded) = try await ClientBootstrap(group: group)
        .channelOption(.socketOption(.tcp_nodelay), value: 1)
        .connect(host: "127.0.0.1", port: port) { connected in
            connected.eventLoop.makeCompletedFuture {
                (
                    connected as any Channel,
                    try connected.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: .init(upgradeConfiguration: configuration))
                )
            }
        }
    guard try await upgraded.get() else { fatalError("the raw client's upgrade failed") }
    let measure = { (count: Int) async throws in
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.eventLoop.execute { driver.start(count, promise) }
        try await promise.futureResult.get()
    }
    try await measure(200)
    let (wall0, cpu0) = (ContinuousClock.now, cpuSeconds())
    try await measure(count)
    let result = (seconds(ContinuousClock.now - wall0), cpuSeconds() - cpu0)
    try await channel.close()
    return result
}

/// Courier's WebSocket over `client`'s transport; returns (wall, CPU) seconds.
func courier(_ client: APIClient, _ count: Int) async throws -> (Double, Double) {
    let socket = try await client.webSocket(
        Endpoint<RawResponse>(.get("echo"), on: Node("bench", baseURL: "http://127.0.0.1:\(port)")),
        options: .init(pingInterval: nil, bufferedMessages: max(16, window)))
    var echoes = socket.messages.makeAsyncIterator()
    for _ in 0..<200 {
        try await socket.send(text: text)
        _ = try await echoes.next()
    }
    let (wall0, cpu0) = (ContinuousClock.now, cpuSeconds())
    var left = count
    while left > 0 {
        let batch = min(window, left)
        for _ in 0..<batch { try await socket.send(text: text) }
        for _ in 0..<batch { _ = try await echoes.next() }
        left -= batch
    }
    let result = (seconds(ContinuousClock.now - wall0), cpuSeconds() - cpu0)
    await socket.close()
    return result
}

let ahc = try AsyncHTTPClientTransport()
let curl = try CurlTransport()
let curlClient = APIClient(transport: curl)
let clients: [(String, APIClient)] =
    [("Courier · AsyncHTTPClientTransport", APIClient(transport: ahc))]
    + (curlClient.webSocketUnavailability == nil
        ? [("Courier · CurlTransport (libcurl \(CurlFeatures.current.version))", curlClient)] : [])
if let reason = curlClient.webSocketUnavailability { report("skipped: \(reason)") }
var wall: [String: [Double]] = [:]
var cpu: [String: [Double]] = [:]
let floor = "raw SwiftNIO client (NIOWebSocket)"
for _ in 0..<rounds {
    let (w, c) = try await rawNIO(messages)
    wall[floor, default: []].append(w)
    cpu[floor, default: []].append(c)
    for (name, client) in clients {
        let (w, c) = try await courier(client, messages)
        wall[name, default: []].append(w)
        cpu[name, default: []].append(c)
    }
}
let floorCPU = median(cpu[floor] ?? [])
report(
    "\(messages) round trips of a 16-byte text message per round, \(window) in flight at once, "
        + "\(rounds) rounds, medians:")
report("| client | messages/s | µs wall / message | µs CPU / message | CPU ÷ raw NIO |")
report("|---|---|---|---|---|")
for name in [floor] + clients.map(\.0) {
    let w = median(wall[name] ?? [])
    let c = median(cpu[name] ?? [])
    let row = String(
        format: "| %@ | %.0f | %.1f | %.1f | %.2f× |", name, Double(messages) / w, w / Double(messages) * 1e6,
        c / Double(messages) * 1e6, c / floorCPU)
    report(row)
}
try await ahc.shutdown()
await curl.shutdown()
