@_spi(Locking) import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes

/// A plugin that records every hook a streamed call reaches, and lets a
/// test wait for `process` (which a dropped stream runs from a task of its own).
final class StreamRecorder: Plugin {
    private struct State {
        var sent = 0
        var received: [Int] = []
        var processed: [Result<RawResponse, CourierError>] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    var sent: Int { state.withLock { $0.sent } }
    var received: [Int] { state.withLock { $0.received } }
    var processed: [Result<RawResponse, CourierError>] { state.withLock { $0.processed } }

    func willSend(_ request: HTTPRequest, context: CallContext) async {
        state.withLock { $0.sent += 1 }
    }

    func didReceive(_ result: Result<RawResponse, CourierError>, request: HTTPRequest, context: CallContext)
        async
    {
        state.withLock { $0.received.append((try? result.get().statusCode) ?? 0) }
    }

    func process(_ result: Result<RawResponse, CourierError>, context: CallContext) async
        -> Result<RawResponse, CourierError>
    {
        let waiters = state.withLock { state in
            state.processed.append(result)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
        return result
    }

    /// Returns once `process` has run.
    func waitForProcess() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if !state.processed.isEmpty { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}

extension Endpoint where Response == RawResponse {
    /// A streamed API on the stub node.
    static var feed: Self { Endpoint(.get("feed"), on: .api) }
}
