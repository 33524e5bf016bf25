import Foundation
import NIOConcurrencyHelpers
import Synchronization

/// One exchange as the server saw it.
public struct JournalEntry: Sendable, Encodable {
    /// Monotonic times in nanoseconds since the server started; later ones
    /// stay `nil` until they happen.
    public struct Timestamps: Sendable, Hashable, Encodable {
        /// The connection was accepted.
        public var accepted: UInt64
        /// The first byte of this exchange's request arrived.
        public var firstByte: UInt64
        /// The request head was complete.
        public var headersDone: UInt64
        /// The request body was complete (or abandoned by a fault).
        public var bodyDone: UInt64?
        /// The first response byte was written (or the fault began).
        public var responseStart: UInt64?
        /// The response was fully written, or the connection closed by a fault.
        public var responseEnd: UInt64?
        /// The connection closed, by either side, while this was its latest
        /// exchange: a client that gives up on a stalled answer shows here.
        public var connectionClosed: UInt64?
    }

    /// Increasing from 1 across the server's life (not reset by `reset`).
    public var sequence: Int
    /// Which accepted connection carried the exchange, from 1.
    public var connectionIndex: Int
    /// Which exchange on that connection, from 1.
    public var exchangeIndex: Int
    /// The client's address.
    public var remoteAddress: String
    /// The request.
    public var request: RecordedRequest
    /// The stub that answered, if one did.
    public var stubID: String?
    /// The position in that stub's sequence.
    public var responseIndex: Int?
    /// The built-in route that answered, if one did (e.g. `/anything`).
    public var builtinRoute: String?
    /// Whether nothing matched (strict mode records this as a failure).
    public var unmatched: Bool
    /// The scenario the stub belongs to.
    public var scenarioName: String?
    /// The scenario's state before the exchange.
    public var scenarioStateBefore: String?
    /// The scenario's state after the exchange.
    public var scenarioStateAfter: String?
    /// The fault applied, by name.
    public var fault: String?
    /// The delay chosen before answering, in milliseconds (seeded random delays repeat).
    public var delayMs: Int?
    /// The status sent, when a status line was sent.
    public var status: Int?
    /// Response bytes written for this exchange.
    public var bytesWritten: Int
    /// When things happened.
    public var timestamps: Timestamps
    /// The answer the server planned (headers and the body's first bytes).
    public var response: RecordedResponse?
    /// For a request no stub matched: the closest stubs and the matchers that failed.
    public var nearMisses: [NearMiss]?
    /// The OpenAPI operation the request called (its `operationId`, else
    /// `METHOD /template`), when the server serves a document.
    public var operationID: String?
    /// What the request broke of the OpenAPI document; `nil` when nothing.
    public var findings: [SpecFinding]?
    /// Once the request became a WebSocket conversation: its frames, both
    /// ways, in order (at most ``WebSocketFrameRecord/kept``).
    public var webSocketFrames: [WebSocketFrameRecord]?
    /// Frames past ``WebSocketFrameRecord/kept``, counted, not kept.
    public var webSocketFramesDropped = 0
    /// Whether the exchange came over TLS (`https`, ``MockServer/Configuration/tls``).
    public var tls = false

    enum CodingKeys: String, CodingKey {
        case sequence, connectionIndex, exchangeIndex, remoteAddress, stubID, responseIndex, builtinRoute,
            unmatched
        case scenarioName, scenarioStateBefore, scenarioStateAfter, fault, delayMs, status, bytesWritten,
            timestamps, response, nearMisses, operationID, findings, webSocketFrames, webSocketFramesDropped,
            tls
        case method, uri, version, headers, body, bodyBase64
    }

    /// Encodes the request's method, target, headers and body inline.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(connectionIndex, forKey: .connectionIndex)
        try container.encode(exchangeIndex, forKey: .exchangeIndex)
        try container.encode(remoteAddress, forKey: .remoteAddress)
        try container.encode(request.method, forKey: .method)
        try container.encode(request.uri, forKey: .uri)
        try container.encode(request.version, forKey: .version)
        try container.encode(tls, forKey: .tls)
        try container.encode(request.headers, forKey: .headers)
        if let text = request.bodyText {
            try container.encode(text, forKey: .body)
        } else {
            try container.encode(Data(request.body).base64EncodedString(), forKey: .bodyBase64)
        }
        try container.encodeIfPresent(stubID, forKey: .stubID)
        try container.encodeIfPresent(responseIndex, forKey: .responseIndex)
        try container.encodeIfPresent(builtinRoute, forKey: .builtinRoute)
        try container.encode(unmatched, forKey: .unmatched)
        try container.encodeIfPresent(scenarioName, forKey: .scenarioName)
        try container.encodeIfPresent(scenarioStateBefore, forKey: .scenarioStateBefore)
        try container.encodeIfPresent(scenarioStateAfter, forKey: .scenarioStateAfter)
        try container.encodeIfPresent(fault, forKey: .fault)
        try container.encodeIfPresent(delayMs, forKey: .delayMs)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encode(bytesWritten, forKey: .bytesWritten)
        try container.encode(timestamps, forKey: .timestamps)
        try container.encodeIfPresent(response, forKey: .response)
        try container.encodeIfPresent(nearMisses, forKey: .nearMisses)
        try container.encodeIfPresent(operationID, forKey: .operationID)
        try container.encodeIfPresent(findings, forKey: .findings)
        try container.encodeIfPresent(webSocketFrames, forKey: .webSocketFrames)
        if webSocketFramesDropped > 0 {
            try container.encode(webSocketFramesDropped, forKey: .webSocketFramesDropped)
        }
    }
}

/// The bounded record of every exchange; tests read it in-process, the admin
/// API serves it. When full, the oldest entries are dropped and counted.
public final class Journal: Sendable {
    private struct Waiter {
        let id: Int
        let count: Int
        let predicate: @Sendable (JournalEntry) -> Bool
        let continuation: CheckedContinuation<[JournalEntry], any Error>
    }

    private struct State {
        /// A ring: `entries[start...]` then `entries[..<start]` once full.
        var storage: [JournalEntry] = []
        var start = 0
        var nextSequence = 1
        var dropped = 0
        var waiters: [Waiter] = []

        /// The entries oldest first.
        var ordered: [JournalEntry] { Array(storage[start...] + storage[..<start]) }
        var nextWaiterID = 0
    }

    /// The most entries kept.
    public let capacity: Int
    private let state = NIOLockedValueBox(State())

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Every entry kept, oldest first.
    public var entries: [JournalEntry] { state.withLockedValue { $0.ordered } }

    /// How many entries were dropped because the journal was full.
    public var dropped: Int { state.withLockedValue { $0.dropped } }

    /// The entries a stub answered, oldest first.
    public func entries(stub id: String) -> [JournalEntry] { entries.filter { $0.stubID == id } }

    /// Entries for requests no stub or route matched.
    public var unmatched: [JournalEntry] { entries.filter(\.unmatched) }

    /// Waits until at least `count` entries satisfy `predicate`, and returns them.
    ///
    /// The deadline is a safety net against a hung test, not a timing
    /// assertion: the call returns as soon as the entries exist. Its default,
    /// 10 minutes, is one no loaded machine reaches while requests still
    /// arrive (64 requests under ThreadSanitizer beside `stress` took over 60 s).
    /// - Throws: ``JournalTimeout`` when the deadline passes first.
    public func waitFor(
        _ count: Int, deadline: Duration = .seconds(600),
        where predicate: @escaping @Sendable (JournalEntry) -> Bool = { _ in true }
    ) async throws -> [JournalEntry] {
        let id = state.withLockedValue { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        let timer = Task {
            try await Task.sleep(for: deadline)
            self.expire(id, count: count)
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let ready: [JournalEntry]? = state.withLockedValue { state in
                let found = state.ordered.filter(predicate)
                if found.count >= count { return found }
                state.waiters.append(
                    Waiter(id: id, count: count, predicate: predicate, continuation: continuation))
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Waits for entries answered by a stub.
    public func waitFor(_ count: Int, stub id: String, deadline: Duration = .seconds(600)) async throws
        -> [JournalEntry]
    {
        try await waitFor(count, deadline: deadline) { $0.stubID == id }
    }

    /// Removes every entry (sequence numbers keep increasing).
    public func clear() {
        state.withLockedValue { state in
            state.storage = []
            state.start = 0
            state.dropped = 0
        }
    }

    /// Records an entry and returns its sequence number.
    ///
    /// The entry is built before the lock is taken and the one it evicts is
    /// released after: with several event loops journaling, the lock is held
    /// only to place it.
    func record(_ entry: consuming JournalEntry) -> Int {
        // After the swap below, `slot` holds the evicted entry, released
        // when this function returns.
        var slot = entry
        let (sequence, ready) = state.withLockedValue { state in
            let sequence = state.nextSequence
            state.nextSequence += 1
            slot.sequence = sequence
            if state.storage.count < capacity {
                state.storage.append(slot)
            } else {
                swap(&state.storage[state.start], &slot)
                state.start = (state.start + 1) % capacity
                state.dropped += 1
            }
            return (sequence, state.waiters.isEmpty ? [] : Self.takeReady(&state))
        }
        for (continuation, entries) in ready { continuation.resume(returning: entries) }
        return sequence
    }

    /// Changes an entry still in the journal.
    func update(_ sequence: Int, _ change: (inout JournalEntry) -> Void) {
        let ready = state.withLockedValue { state in
            // Entries are stored in sequence order around the ring.
            guard let oldest = state.storage.isEmpty ? nil : state.storage[state.start].sequence,
                sequence >= oldest, sequence - oldest < state.storage.count
            else {
                return [(CheckedContinuation<[JournalEntry], any Error>, [JournalEntry])]()
            }
            let index = (state.start + (sequence - oldest)) % state.storage.count
            change(&state.storage[index])
            return state.waiters.isEmpty ? [] : Self.takeReady(&state)
        }
        for (continuation, entries) in ready { continuation.resume(returning: entries) }
    }

    private static func takeReady(_ state: inout State)
        -> [(CheckedContinuation<[JournalEntry], any Error>, [JournalEntry])]
    {
        var ready: [(CheckedContinuation<[JournalEntry], any Error>, [JournalEntry])] = []
        let entries = state.ordered
        state.waiters.removeAll { waiter in
            let found = entries.filter(waiter.predicate)
            guard found.count >= waiter.count else { return false }
            ready.append((waiter.continuation, found))
            return true
        }
        return ready
    }

    private func expire(_ id: Int, count: Int) {
        let waiter: Waiter? = state.withLockedValue { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        guard let waiter else { return }
        let found = entries.filter(waiter.predicate).count
        waiter.continuation.resume(throwing: JournalTimeout(wanted: count, found: found))
    }
}

/// A journal wait whose deadline passed.
public struct JournalTimeout: Error, Sendable, CustomStringConvertible {
    /// How many entries were awaited.
    public var wanted: Int
    /// How many there were.
    public var found: Int

    /// A sentence.
    public var description: String { "waited for \(wanted) journal entries, found \(found)" }
}
