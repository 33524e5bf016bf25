@_spi(Locking) @_spi(Transport) package import CourierCore
package import CourierTesting
package import HTTPTypes
import Synchronization

/// A transport that holds every request until the test answers it, so a
/// test knows exactly which calls are on the network: requests are recorded
/// in arrival order, ``waitForArrivals(_:)`` waits for them (no clock), and
/// ``answer(_:with:)`` lets one through — or, when none is held for the path
/// yet, answers the next one that arrives (so a test never loses an answer
/// to a request still on its way). Cancellation (the task's or the call's)
/// ends a held request at once with ``TransportError/Code/cancelled``.
package final class HeldTransport: Transport {
    private struct Held {
        let path: String
        let headers: HTTPFields
        var continuation: CheckedContinuation<StubOutcome, Never>?
    }

    private struct State {
        var held: [UInt64: Held] = [:]
        var nextID: UInt64 = 0
        var arrivals: [String] = []
        var cancelled: [String] = []
        /// Requests cancelled before they were held.
        var cancelledEarly: Set<UInt64> = []
        /// Answers given before their request arrived, by path.
        var queuedAnswers: [String: [StubOutcome]] = [:]
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    package init() {}

    /// Paths of every request that arrived, in order.
    package var arrivals: [String] { state.withLock { $0.arrivals } }
    /// Paths of held requests that were cancelled, in order.
    package var cancelled: [String] { state.withLock { $0.cancelled } }
    /// Paths of the requests held now, in arrival order.
    package var holding: [String] {
        state.withLock { state in state.held.sorted { $0.key < $1.key }.map(\.value.path) }
    }
    /// The header fields of the held requests, in arrival order.
    package var heldHeaders: [HTTPFields] {
        state.withLock { state in state.held.sorted { $0.key < $1.key }.map(\.value.headers) }
    }

    /// Returns once `count` requests have arrived in all.
    package func waitForArrivals(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.arrivals.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Answers the oldest held request for `path`, or the next one to arrive.
    package func answer(_ path: String, with outcome: StubOutcome = .json("{}")) {
        let continuation: CheckedContinuation<StubOutcome, Never>? = state.withLock { state in
            guard let id = state.held.filter({ $0.value.path == path }).keys.min() else {
                state.queuedAnswers[path, default: []].append(outcome)
                return nil
            }
            return state.held.removeValue(forKey: id)?.continuation
        }
        continuation?.resume(returning: outcome)
    }

    package func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
        let path = request.head.path ?? ""
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let outcome = try await options.withCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<StubOutcome, Never>) in
                let (woken, queued) = state.withLock {
                    state -> ([CheckedContinuation<Void, Never>]?, StubOutcome?) in
                    if state.cancelledEarly.remove(id) != nil {
                        state.cancelled.append(path)
                        return (nil, nil)
                    }
                    state.arrivals.append(path)
                    var queued: StubOutcome?
                    if var answers = state.queuedAnswers[path], !answers.isEmpty {
                        queued = answers.removeFirst()
                        state.queuedAnswers[path] = answers
                    } else {
                        state.held[id] = Held(
                            path: path, headers: request.head.headerFields, continuation: continuation)
                    }
                    let count = state.arrivals.count
                    let ready = state.watchers.filter { $0.count <= count }.map(\.continuation)
                    state.watchers.removeAll { $0.count <= count }
                    return (ready, queued)
                }
                guard let woken else {
                    continuation.resume(returning: .failure(.cancelled, "cancelled before it was held"))
                    return
                }
                for watcher in woken { watcher.resume() }
                if let queued { continuation.resume(returning: queued) }
            }
        } onCancel: { [self] in
            let continuation = state.withLock { state -> CheckedContinuation<StubOutcome, Never>? in
                guard let held = state.held.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                state.cancelled.append(path)
                return held.continuation
            }
            continuation?.resume(returning: .failure(.cancelled, "cancelled while held"))
        }
        return try await StubTransport.immediate(outcome).send(request, options: options)
    }
}
