/// Pausing one call's transfer from outside and resuming it (CourierTransfers'
/// `Transfer.pause()`), told to the transport through
/// ``TransportOptions/transferControl``.
///
/// A transport that can hold a transfer without losing its bytes says so
/// with ``PausableTransport/pausesTransfers`` and, for each exchange it runs,
/// ``attach(_:)``es what pauses and resumes it: libcurl's `curl_easy_pause`,
/// a suspended URLSession task, or — for a transport that pulls its bodies
/// itself — no more pulls until ``waitWhilePaused()`` returns. While a
/// transfer is paused its idle timeout stands still (the idle watch is suspended):
/// the quiet is the app's doing, not the peer's. The total timeout, where
/// one is set, keeps running: a deadline is a deadline.
///
/// A pause that comes between exchanges (before the first, during a retry's
/// delay) holds the next exchange paused from its start.
@_spi(Transport) public final class TransferControl: Sendable {
    /// An exchange attached with ``attach(_:)``; remove it when the exchange ends.
    public struct Registration: Sendable {
        let owner: TransferControl?
        let id: UInt64

        /// Detaches the exchange: later pauses no longer reach it.
        public func remove() { owner?.detach(id) }
    }

    private struct State {
        var paused = false
        var nextID: UInt64 = 0
        var exchanges: [(id: UInt64, apply: @Sendable (Bool) -> Void)] = []
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// Whether the transport of the call can pause (``PausableTransport/pausesTransfers``).
    package let canPause: Bool
    /// The transport's type, for an error saying it cannot.
    package let transportName: String
    private let state = Locked(State())

    /// A control for a call through `transport`.
    package init(for transport: any Transport) {
        canPause = (transport as? any PausableTransport)?.pausesTransfers ?? false
        transportName = String(describing: type(of: transport))
    }

    /// Whether the transfer is paused now.
    public var isPaused: Bool { state.withLock { $0.paused } }

    /// Attaches an exchange that can pause: `apply(true)` stops it moving
    /// bytes either way, keeping what it has; `apply(false)` lets it go on.
    /// When the transfer is paused already, `apply(true)` runs at once, on
    /// this thread, before `attach` returns. `apply` runs outside any lock,
    /// from the thread that pauses or resumes; it must not block.
    /// - Returns: A registration to remove when the exchange ends.
    public func attach(_ apply: @escaping @Sendable (_ paused: Bool) -> Void) -> Registration {
        let (id, paused) = state.withLock { state in
            state.nextID += 1
            state.exchanges.append((state.nextID, apply))
            return (state.nextID, state.paused)
        }
        if paused { apply(true) }
        return Registration(owner: self, id: id)
    }

    /// Returns at once while the transfer runs; while it is paused, waits
    /// until it is resumed or the calling task is cancelled. For a transport
    /// that pauses by not pulling the next chunk.
    public func waitWhilePaused() async {
        guard isPaused else { return }
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wait = state.withLock { state in
                    guard state.paused, !Task.isCancelled else { return false }
                    state.waiters.append((id, continuation))
                    return true
                }
                if !wait { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume()
        }
    }

    /// Pauses the transfer: every attached exchange stops moving bytes, and
    /// exchanges attached later start paused. Nothing happens when it is
    /// paused already.
    /// - Returns: `false`, changing nothing, when the call's transport cannot pause.
    package func pause() -> Bool {
        guard canPause else { return false }
        set(paused: true)
        return true
    }

    /// Lets the transfer go on; nothing happens when it is not paused.
    package func resume() { set(paused: false) }

    private func set(paused: Bool) {
        let (exchanges, waiters) = state.withLock { state in
            guard state.paused != paused else {
                return (
                    [(id: UInt64, apply: @Sendable (Bool) -> Void)](), [CheckedContinuation<Void, Never>]()
                )
            }
            state.paused = paused
            let waiters = paused ? [] : state.waiters.map(\.continuation)
            if !paused { state.waiters = [] }
            return (state.exchanges, waiters)
        }
        for exchange in exchanges { exchange.apply(paused) }
        for waiter in waiters { waiter.resume() }
    }

    private func detach(_ id: UInt64) {
        state.withLock { state in state.exchanges.removeAll { $0.id == id } }
    }
}

/// A transport that may pause an exchange in flight and resume it without
/// losing bytes (``TransferControl``); a transport that is not one never pauses.
@_spi(Transport) public protocol PausableTransport: Transport {
    /// Whether it can, here (a wrapper asks what it wraps; URLSession can
    /// on Apple platforms only). When `true`, each exchange attaches to
    /// ``TransportOptions/transferControl``.
    var pausesTransfers: Bool { get }
}

/// A transport that may hand the interim (1xx) responses it receives to
/// ``TransportOptions/interimResponse``; a transport that is not one never does.
@_spi(Transport) public protocol InterimResponseTransport: Transport {
    /// Whether it does, here (a wrapper asks what it wraps).
    var reportsInterimResponses: Bool { get }
}
