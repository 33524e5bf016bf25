import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A mock HTTP server on real sockets, driven by contract files, that can
/// misbehave below HTTP and tells a test exactly what the client sent.
///
/// Start one per test, in-process, on an ephemeral port:
///
/// ```swift
/// try await withMockServer(.init(contracts: contractsURL)) { server in
///     // point the client at server.baseURL …
///     let attempts = try await server.journal.waitFor(3, stub: "user-retry")
///     #expect(attempts[1].connectionIndex != attempts[0].connectionIndex)
///     try server.verify()
/// }
/// ```
public final class MockServer: Sendable {
    /// How a server starts.
    public struct Configuration: Sendable {
        /// The address to bind; loopback by default.
        public var host: String
        /// The port; 0 picks a free one.
        public var port: Int
        /// A directory of contract files to load (`*.json`, bodies in `__files/`).
        public var contracts: URL?
        /// Stubs given in code, added after the contract files.
        public var stubs: [StubMapping]
        /// Record unmatched requests as failures that ``MockServer/verify()`` reports.
        public var strict: Bool
        /// Serve the httpbin-like routes when no stub matches.
        public var builtinRoutes: Bool
        /// The largest request body accepted; larger gets 413.
        public var maxRequestBodySize: Int
        /// The most journal entries kept.
        public var journalCapacity: Int
        /// Let non-loopback clients use the admin API.
        public var allowRemoteAdmin: Bool
        /// Where the server logs.
        public var logger: Logger
        /// Refuse, with a 400 that names the rule, an HTTP/1.x request that
        /// breaks what RFC 9110, 9112 or 6265 forbid a client to send —
        /// several `Cookie` fields, no `Host` or several, a `Host` that
        /// disagrees with the target — as a strict server does, so that
        /// contracts catch wire mistakes. On by default.
        public var refusesForbiddenRequests = true
        /// Record instead of answering from stubs: every request (but the
        /// admin API's) is forwarded to the target and the exchange kept for
        /// ``MockServer/writeRecording(to:)``.
        public var recording: RecordingOptions?
        /// An OpenAPI 3.0 or 3.1 document (YAML or JSON) to serve and check
        /// requests against: a request that breaks it is refused with problem
        /// details (RFC 9457); a valid one no stub takes is answered from the
        /// document's examples or schemas.
        public var openAPI: URL?
        /// The seed of the values made from the document's schemas: the same
        /// seed, the same answers.
        public var openAPISeed: UInt64 = 0
        /// A limit per client key, announced with the IETF `RateLimit`
        /// fields and enforced with `429` (``MockRateLimit``); `nil`: none.
        public var rateLimit: MockRateLimit?
        /// Serve `https://` with this certificate (given or made at start);
        /// `nil`: plaintext. Needs the `TLS` trait.
        public var tls: MockTLS?

        /// Creates a configuration; every argument has a default.
        public init(
            host: String = "127.0.0.1", port: Int = 0, contracts: URL? = nil, stubs: [StubMapping] = [],
            strict: Bool = true, builtinRoutes: Bool = true, maxRequestBodySize: Int = 16 * 1024 * 1024,
            journalCapacity: Int = 10_000, allowRemoteAdmin: Bool = false,
            logger: Logger = Logger(label: "courier-mock", factory: { _ in SwiftLogNoOpLogHandler() }),
            recording: RecordingOptions? = nil
        ) {
            self.recording = recording
            self.host = host
            self.port = port
            self.contracts = contracts
            self.stubs = stubs
            self.strict = strict
            self.builtinRoutes = builtinRoutes
            self.maxRequestBodySize = maxRequestBodySize
            self.journalCapacity = journalCapacity
            self.allowRemoteAdmin = allowRemoteAdmin
            self.logger = logger
        }
    }

    private struct State {
        var listener: (any Channel)?
        /// Holds the port while connections are refused.
        var reservation: PortReservation?
        var stopped = false
    }

    private let core: ServerCore
    private let group: any EventLoopGroup
    private let state = NIOLockedValueBox(State())
    /// The bound host.
    public let host: String
    /// The bound port.
    public let port: Int

    /// Every exchange, for assertions.
    public var journal: Journal { core.journal }

    /// `http://host:port` (`https://` with ``Configuration/tls``), for pointing a client at the server.
    public var baseURL: String {
        let scheme = core.tls == nil ? "http" : "https"
        return host.contains(":") ? "\(scheme)://[\(host)]:\(port)" : "\(scheme)://\(host):\(port)"
    }

    /// The CA that signed a certificate made at start (PEM), for clients to
    /// trust; `nil` without TLS or with a certificate given in files.
    public var certificateAuthorityPEM: String? { core.tls?.certificateAuthorityPEM }

    private init(core: ServerCore, group: any EventLoopGroup, listener: any Channel, host: String, port: Int)
    {
        self.core = core
        self.group = group
        self.host = host
        self.port = port
        state.withLockedValue { $0.listener = listener }
    }

    /// Loads the contracts (and the OpenAPI document) and starts listening.
    /// - Throws: ``ContractError`` for a bad contract file, ``SpecError`` for
    ///   an OpenAPI document that cannot be read; a NIO error when the port
    ///   cannot be bound.
    public static func start(_ configuration: Configuration = .init()) async throws -> MockServer {
        var stubs =
            try configuration.contracts.map { directory throws(ContractError) in
                try ContractLoader.load(directory: directory)
            } ?? []
        stubs += configuration.stubs
        let recorder = try configuration.recording.map(Recorder.init)
        let spec = try configuration.openAPI.map { url throws(SpecError) in try OpenAPISpec(contentsOf: url) }
        let tls = try configuration.tls.map(TLSServing.init)
        let core = ServerCore(
            configuration: configuration, stubs: stubs, recorder: recorder, spec: spec, tls: tls)
        let group = MultiThreadedEventLoopGroup.singleton
        let listener = try await bind(
            core: core, group: group, host: configuration.host, port: configuration.port)
        guard let port = listener.localAddress?.port else {
            try? await listener.close()
            throw MockServerError("the listener has no local port")
        }
        let server = MockServer(
            core: core, group: group, listener: listener, host: configuration.host, port: port)
        core.logger.info("listening", metadata: ["url": "\(server.baseURL)", "stubs": "\(stubs.count)"])
        return server
    }

    private static func bind(core: ServerCore, group: any EventLoopGroup, host: String, port: Int)
        async throws -> any Channel
    {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // So that a PortReservation can hold the port before the listener
            // closes and until the next one listens: in a gap, a client's
            // connect could be given the port as its own. (A bind to port 0
            // never shares a port through SO_REUSEPORT.)
            .serverChannelOption(.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptOrderHandler(core: core))
                }
            }
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                core.track(channel)
                return channel.eventLoop.makeCompletedFuture {
                    let info = ConnectionInfo(core.takeAssignment(for: channel), tls: core.tls != nil)
                    if let tls = core.tls {
                        try channel.pipeline.syncOperations.addHandler(tls.serverHandler())
                    }
                    try channel.pipeline.syncOperations.addHandler(FirstByteHandler(info: info, core: core))
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                    try channel.pipeline.syncOperations.addHandler(
                        MockConnectionHandler(core: core, info: info))
                }
            }
            .bind(host: host, port: port).get()
    }

    // MARK: - Stubs, scenarios and faults

    /// Adds a stub (replacing one with the same id); it wins ties in priority.
    public func addStub(_ stub: StubMapping) { core.registry.add(stub) }

    /// Removes a stub; returns whether it existed.
    @discardableResult
    public func removeStub(id: String) -> Bool { core.registry.remove(id: id) }

    /// Journal, sequences, scenarios and failures back to the start; stubs back
    /// to those the server started with.
    public func reset() {
        core.journal.clear()
        core.registry.reset(restoreMappings: true)
    }

    /// Every scenario's current state.
    public var scenarioStates: [String: String] { core.registry.scenarios() }

    /// Sets a scenario's state; returns false for an unknown scenario.
    @discardableResult
    public func setScenario(_ name: String, to state: String) -> Bool {
        core.registry.setScenario(name, to: state)
    }

    /// Queues faults for the next accepted connections, one each.
    public func queueConnectionFaults(_ faults: [ConnectionFault]) { core.queue(faults) }

    /// Stops listening, so that connection attempts are refused, until
    /// ``acceptConnections()``; open connections go on.
    public func refuseConnections() async throws {
        let listener = state.withLockedValue { state in
            defer { state.listener = nil }
            return state.listener
        }
        guard let listener else { return }
        guard let address = listener.localAddress else {
            try await listener.close()
            return
        }
        // Held before the listener goes, so that the port is never free.
        let reservation: PortReservation
        do {
            reservation = try PortReservation(address)
        } catch {
            try? await listener.close()
            throw error
        }
        try await listener.close()
        let kept = state.withLockedValue { state in
            guard !state.stopped, state.reservation == nil else { return false }
            state.reservation = reservation
            return true
        }
        if !kept { reservation.release() }
    }

    /// Listens again on the same port after ``refuseConnections()``.
    public func acceptConnections() async throws {
        let reservation = state.withLockedValue { state -> PortReservation?? in
            guard state.listener == nil, !state.stopped else { return nil }
            defer { state.reservation = nil }
            return .some(state.reservation)
        }
        guard let reservation else { return }
        // The new listener first, then the reservation goes: never a gap.
        let listener: any Channel
        do {
            listener = try await Self.bind(core: core, group: group, host: host, port: port)
        } catch {
            reservation?.release()
            throw error
        }
        reservation?.release()
        state.withLockedValue { $0.listener = listener }
    }

    // MARK: - Verification and shutdown

    /// Throws when a request went unmatched (strict mode), a sequence with
    /// `exhausted: fail` ran out, or a required stub was never hit.
    /// - Throws: ``MockVerificationError`` listing every problem.
    public func verify() throws(MockVerificationError) {
        let problems = core.registry.problems()
        if !problems.isEmpty { throw MockVerificationError(problems: problems) }
    }

    /// Writes what the server recorded (``Configuration/recording``) as
    /// contract files in `directory`, large bodies in its `__files/`.
    /// - Returns: The contract files written, by name.
    /// - Throws: ``MockServerError`` when the server does not record; a file error.
    public func writeRecording(to directory: URL) throws -> [String] {
        guard let recorder = core.recorder else { throw MockServerError("this server does not record") }
        return try RecordingWriter(options: recorder.options).write(recorder.recorded, to: directory)
    }

    /// How many exchanges the server has recorded.
    public var recordedExchanges: Int { core.recorder?.recorded.count ?? 0 }

    /// Stops listening and closes every connection.
    public func stop() async {
        let (listener, reservation) = state.withLockedValue { state in
            state.stopped = true
            defer {
                state.listener = nil
                state.reservation = nil
            }
            return (state.listener, state.reservation)
        }
        reservation?.release()
        try? await listener?.close()
        for child in core.closeConnections() { try? await child.close() }
        await core.setRecorder(nil)?.shutdown()
    }
}

/// Runs `body` with a server started from `configuration`, and stops the
/// server afterwards, whether `body` returns or throws.
public func withMockServer<T: Sendable>(
    _ configuration: MockServer.Configuration = .init(), _ body: (MockServer) async throws -> T
) async throws -> T {
    let server = try await MockServer.start(configuration)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// What ``MockServer/verify()`` found.
public struct MockVerificationError: Error, Sendable, CustomStringConvertible {
    /// One sentence per problem.
    public var problems: [String]

    /// The problems, one per line.
    public var description: String { "mock server verification failed:\n" + problems.joined(separator: "\n") }
}

/// A failure of the server itself.
public struct MockServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    init(_ description: String) { self.description = description }
}
