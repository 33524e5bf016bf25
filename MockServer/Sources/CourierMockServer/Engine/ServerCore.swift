import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Synchronization

/// What every connection shares: configuration, stubs, journal, the clock's
/// origin, counters and the queue of accept-time faults.
final class ServerCore: Sendable {
    let configuration: MockServer.Configuration
    /// The counts of ``MockServer/Configuration/rateLimit``.
    let rateLimits: RateLimitWindows?
    let registry: StubRegistry
    let journal: Journal
    let logger: Logger
    /// The OpenAPI document requests are checked against and answered from, if any.
    let spec: OpenAPISpec?
    /// The document's answers, once made.
    let specAnswers = SpecAnswerCache()
    /// Resumable uploads' resources (`/resumable`).
    let uploads = ResumableUploads()
    /// What each connection speaks TLS with, when the server serves https.
    let tls: TLSServing?
    private let origin = NIODeadline.now().uptimeNanoseconds
    /// The wall-clock time of ``now()``'s zero, for exports that need dates (HAR).
    let startDate = Date()
    private let state = NIOLockedValueBox(Counters())

    /// What the accept loop decided for a connection, in accept order.
    struct Assignment: Sendable {
        var index: Int
        var acceptedAt: UInt64
        var fault: ConnectionFault?
    }

    private struct Counters {
        var connections = 0
        var connectionFaults: [ConnectionFault] = []
        var assignments: [ObjectIdentifier: Assignment] = [:]
        /// Open connections, so that stopping the server closes them.
        var open: [ObjectIdentifier: any Channel] = [:]
        var closed = false
    }

    private let recording: NIOLockedValueBox<Recorder?>
    /// Whether a recorder is set: read without the lock by every request,
    /// written under it by ``setRecorder(_:)``.
    private let isRecording: Synchronization.Atomic<Bool>
    /// Forwards and keeps every exchange, while the server records.
    var recorder: Recorder? {
        guard isRecording.load(ordering: .acquiring) else { return nil }
        return recording.withLockedValue { $0 }
    }

    /// Starts recording (replacing a recording in progress) or stops it;
    /// returns the recorder that was running.
    @discardableResult
    func setRecorder(_ recorder: Recorder?) -> Recorder? {
        recording.withLockedValue { current in
            defer {
                current = recorder
                isRecording.store(recorder != nil, ordering: .releasing)
            }
            return current
        }
    }

    init(
        configuration: MockServer.Configuration, stubs: [StubMapping], recorder: Recorder? = nil,
        spec: OpenAPISpec? = nil, tls: TLSServing? = nil
    ) {
        self.configuration = configuration
        self.tls = tls
        self.spec = spec
        self.recording = NIOLockedValueBox(recorder)
        self.isRecording = Synchronization.Atomic(recorder != nil)
        self.registry = StubRegistry(stubs: stubs)
        self.journal = Journal(capacity: configuration.journalCapacity)
        self.logger = configuration.logger
        let started = NIODeadline.now().uptimeNanoseconds
        self.rateLimits = configuration.rateLimit.map { limit in
            RateLimitWindows(limit) { Double(NIODeadline.now().uptimeNanoseconds - started) / 1e9 }
        }
    }

    /// Monotonic nanoseconds since the server started.
    func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds - origin }

    /// Called by the accept loop, in accept order: numbers the connection and
    /// gives it the next queued connection fault.
    func assign(_ channel: any Channel) {
        let now = now()
        state.withLockedValue { counters in
            counters.connections += 1
            let fault = counters.connectionFaults.isEmpty ? nil : counters.connectionFaults.removeFirst()
            counters.assignments[ObjectIdentifier(channel)] = Assignment(
                index: counters.connections, acceptedAt: now, fault: fault)
        }
    }

    /// The accept loop's decision for a connection (taken once).
    func takeAssignment(for channel: any Channel) -> Assignment {
        let now = now()
        return state.withLockedValue { counters in
            if let assignment = counters.assignments.removeValue(forKey: ObjectIdentifier(channel)) {
                return assignment
            }
            counters.connections += 1
            return Assignment(index: counters.connections, acceptedAt: now, fault: nil)
        }
    }

    /// Remembers an accepted connection until it closes; after
    /// ``closeConnections()`` new ones are closed at once.
    func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let closed = state.withLockedValue { counters in
            if !counters.closed { counters.open[id] = channel }
            return counters.closed
        }
        if closed {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { _ in
            self.state.withLockedValue { _ = $0.open.removeValue(forKey: id) }
        }
    }

    /// Stops tracking and returns every open connection, for the caller to close.
    func closeConnections() -> [any Channel] {
        state.withLockedValue { counters in
            counters.closed = true
            defer { counters.open = [:] }
            return Array(counters.open.values)
        }
    }

    func queue(_ faults: [ConnectionFault]) { state.withLockedValue { $0.connectionFaults += faults } }
}

/// Sits in the listener's pipeline and sees each accepted connection in
/// accept order, before it is handed to an event loop.
final class AcceptOrderHandler: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let core: ServerCore

    init(core: ServerCore) { self.core = core }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        core.assign(unwrapInboundIn(data))
        context.fireChannelRead(data)
    }
}
