import CCurl
@_spi(Locking) import CourierCore
import Foundation
import Synchronization

/// Drives one libcurl multi handle on a thread of its own. Callers hand it
/// transfers and cancellations through a locked queue and wake it (an
/// eventfd on Linux, `curl_multi_wakeup` in the poll loop); it resumes
/// their continuations when transfers end. No libcurl call ever runs on the
/// Swift concurrency pool.
///
/// It waits for sockets in one of two ways
/// (``CurlTransport/Configuration/EventLoop``): epoll driven by libcurl's
/// socket and timer callbacks (``CurlEpollLoop``, the default on Linux), or
/// `curl_multi_perform` and `curl_multi_poll`.
///
/// The engine is also a `TaskExecutor`: tasks that prefer it run their jobs
/// on the engine thread between libcurl calls, so a request made from such a
/// task never changes threads and needs no wake-up.
final class CurlEngine: TaskExecutor, Sendable {
    enum Command {
        case add(TransferBox)
        /// Fail a transfer (wherever it is) with the error.
        case cancel(UInt64, TransportError)
        /// Resume a transfer paused because its reader fell behind.
        case resume(UInt64)
        /// Apply the app's pause or resume (the transfer's ``CurlPauseRequest``).
        case applyPause(UInt64)
    }

    struct Queue {
        var commands: [Command] = []
        var stopping = false
        var stopped = false
        /// Jobs of tasks that prefer this engine as their executor.
        var jobs: [UnownedJob] = []
    }

    /// Handed to the engine thread; `CurlTransfer`s are not Sendable.
    struct TransferBox: @unchecked Sendable {
        // Safe: a transfer is created by the caller, handed over once through
        // the locked queue, and from then on touched only by the engine thread.
        let transfer: CurlTransfer
    }

    private let multiHandle: MultiHandle
    var multi: UnsafeMutableRawPointer { multiHandle.pointer }
    let configuration: CurlTransport.Configuration
    #if os(Linux)
        /// The epoll loop's descriptors; nil in the poll loop.
        let epoll: EpollDescriptors?
        /// The epoll loop; nil in the poll loop. Made here, used on the engine thread.
        let socketLoop: EngineThreadLoop?
    #endif
    let queue = Locked(Queue())
    /// The next transfer's id (``nextID()``).
    private let ids = Atomic<UInt64>(1)
    /// The engine thread is in (or about to enter) `curl_multi_poll`: only
    /// then does new work need a wake-up. Set under the queue's lock (with
    /// the queue seen empty), read and cleared by producers under it; the
    /// engine clears it after the poll without the lock — a producer that
    /// still saw it set only costs one spurious wake-up, and one that sees it
    /// clear finds the engine about to look at the queue.
    let sleeping = Atomic<Bool>(false)
    /// Producers between deciding to wake the engine (under the lock) and
    /// `curl_multi_wakeup` returning (after it): the wake-up system call is
    /// made outside the lock, so the engine, woken, does not wait for the
    /// producer to let go. The engine cleans the multi handle up only once
    /// this is back to zero, after `stopped` has closed the door to more.
    let wakersInFlight = Atomic<Int>(0)
    let finished = Locked<[CheckedContinuation<Void, Never>]>([])
    /// Transfers in libcurl, and waiting for a place, as last counted by the engine.
    let counts = Atomic<Int>(0)
    let waitingCount = Atomic<Int>(0)
    /// The engine thread's `pthread_t`, once it runs.
    private let thread = Atomic<UInt>(0)

    /// The loop the engine thread runs (``CurlTransport/Configuration/EventLoop/automatic`` resolved).
    var eventLoop: CurlTransport.Configuration.EventLoop {
        #if os(Linux)
            if epoll != nil { return .epoll }
        #endif
        return .poll
    }

    /// What easy handles must open their sockets through; nil when libcurl
    /// may open them itself (the poll loop).
    var socketOpener: CurlSocketOpener? {
        #if os(Linux)
            return socketLoop?.loop.socketOpener
        #else
            return nil
        #endif
    }

    /// Whether the caller runs on the engine thread (its task prefers this executor).
    var isCurrentThread: Bool {
        thread.load(ordering: .relaxed) == UInt(bitPattern: Int(bitPattern: pthread_self()))
    }

    init(configuration: CurlTransport.Configuration) throws(TransportError) {
        curl_global_init(Int(CURL_GLOBAL_ALL))
        guard let multi = curl_multi_init() else { throw TransportError(.other, "curl_multi_init failed") }
        self.multiHandle = MultiHandle(pointer: multi)
        self.configuration = configuration
        #if os(Linux)
            if configuration.eventLoop == .poll {
                self.epoll = nil
                self.socketLoop = nil
            } else if let descriptors = EpollDescriptors.make() {
                self.epoll = descriptors
                self.socketLoop = EngineThreadLoop(
                    loop: CurlEpollLoop(multi: multi, descriptors: descriptors))
            } else {
                curl_multi_cleanup(multi)
                throw TransportError(.other, "epoll_create1 or eventfd failed (errno \(errno))")
            }
        #else
            if configuration.eventLoop == .epoll {
                curl_multi_cleanup(multi)
                throw TransportError(.other, "the epoll event loop exists on Linux only")
            }
        #endif
        _ = courier_multi_setopt_long(
            multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        _ = courier_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxConnections)
        _ = courier_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxConnections)
        let thread = Thread { [self] in
            // Named from inside: on Linux a name set before start() is lost.
            _ = courier_name_current_thread("courier-curl")
            self.thread.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .relaxed)
            self.run()
        }
        thread.start()
    }

    /// A new transfer's id: unique for the engine's life, without the queue's lock.
    func nextID() -> UInt64 {
        ids.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Queues a configured transfer; its continuation is resumed by the engine.
    func add(_ transfer: CurlTransfer) -> Bool {
        let (accepted, wake) = queue.withLock { queue in
            guard !queue.stopping else { return (false, false) }
            queue.commands.append(.add(TransferBox(transfer: transfer)))
            return (true, claimWakeUp())
        }
        if wake { wakeUp() }
        return accepted
    }

    /// Under the queue's lock: whether this producer must wake the engine
    /// (it was about to sleep), counted in ``wakersInFlight`` until
    /// ``wakeUp()`` is done.
    private func claimWakeUp() -> Bool {
        guard sleeping.exchange(false, ordering: .relaxed) else { return false }
        wakersInFlight.add(1, ordering: .relaxed)
        return true
    }

    /// Outside the lock, after ``claimWakeUp()`` said so. The handle lives
    /// until ``wakersInFlight`` is back to zero.
    private func wakeUp() {
        signal()
        wakersInFlight.subtract(1, ordering: .releasing)
    }

    /// The wake-up itself: a write to the eventfd, or `curl_multi_wakeup`.
    private func signal() {
        #if os(Linux)
            if let epoll {
                epoll.wakeUp()
                return
            }
        #endif
        curl_multi_wakeup(multi)
    }

    /// Runs `job` on the engine thread; after shutdown, on the global executor.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let (accepted, wake) = queue.withLock { queue in
            guard !queue.stopped else { return (false, false) }
            queue.jobs.append(job)
            return (true, claimWakeUp())
        }
        if wake { wakeUp() }
        if !accepted { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    func cancel(
        _ id: UInt64, because reason: TransportError = TransportError(.cancelled, "the request was cancelled")
    ) {
        command(.cancel(id, reason))
    }

    /// Resumes a streamed transfer its reader caught up with.
    func resume(_ id: UInt64) { command(.resume(id)) }

    /// Pauses or resumes a transfer as its ``CurlPauseRequest`` now says.
    func applyPause(_ id: UInt64) { command(.applyPause(id)) }

    private func command(_ command: Command) {
        let wake = queue.withLock { queue in
            guard !queue.stopping else { return false }
            queue.commands.append(command)
            return claimWakeUp()
        }
        if wake { wakeUp() }
    }

    /// Stops the thread after failing every transfer in flight.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyStopped = queue.withLock { queue in
                if queue.stopped { return true }
                if !queue.stopping { signal() }
                queue.stopping = true
                finished.withLock { $0.append(continuation) }
                return false
            }
            if alreadyStopped { continuation.resume() }
        }
    }
}
