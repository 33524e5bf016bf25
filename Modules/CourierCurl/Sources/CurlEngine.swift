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
    private enum Command {
        case add(TransferBox)
        case cancel(UInt64)
        /// Resume a transfer paused because its reader fell behind.
        case resume(UInt64)
    }

    private struct Queue {
        var commands: [Command] = []
        var nextID: UInt64 = 1
        var stopping = false
        var stopped = false
        /// Jobs of tasks that prefer this engine as their executor.
        var jobs: [UnownedJob] = []
    }

    /// Handed to the engine thread; `CurlTransfer`s are not Sendable.
    private struct TransferBox: @unchecked Sendable {
        // Safe: a transfer is created by the caller, handed over once through
        // the locked queue, and from then on touched only by the engine thread.
        let transfer: CurlTransfer
    }

    private let multiHandle: MultiHandle
    private var multi: UnsafeMutableRawPointer { multiHandle.pointer }
    private let configuration: CurlTransport.Configuration
    #if os(Linux)
        /// The epoll loop's descriptors; nil in the poll loop.
        private let epoll: EpollDescriptors?
        /// The epoll loop; nil in the poll loop. Made here, used on the engine thread.
        private let socketLoop: EngineThreadLoop?
    #endif
    private let queue = Locked(Queue())
    /// The engine thread is in (or about to enter) `curl_multi_poll`: only
    /// then does new work need a wake-up. Set under the queue's lock (with
    /// the queue seen empty), read and cleared by producers under it; the
    /// engine clears it after the poll without the lock — a producer that
    /// still saw it set only costs one spurious wake-up, and one that sees it
    /// clear finds the engine about to look at the queue.
    private let sleeping = Atomic<Bool>(false)
    /// Producers between deciding to wake the engine (under the lock) and
    /// `curl_multi_wakeup` returning (after it): the wake-up system call is
    /// made outside the lock, so the engine, woken, does not wait for the
    /// producer to let go. The engine cleans the multi handle up only once
    /// this is back to zero, after `stopped` has closed the door to more.
    private let wakersInFlight = Atomic<Int>(0)
    private let finished = Locked<[CheckedContinuation<Void, Never>]>([])
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

    func nextID() -> UInt64 {
        queue.withLock { queue in
            defer { queue.nextID += 1 }
            return queue.nextID
        }
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

    func cancel(_ id: UInt64) { command(.cancel(id)) }

    /// Resumes a streamed transfer its reader caught up with.
    func resume(_ id: UInt64) { command(.resume(id)) }

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

    // MARK: - The engine thread

    private func run() {
        var active: [UInt64: CurlTransfer] = [:]
        // Transfers over the limit wait here, not in libcurl's pending list,
        // which costs more memory per request and slows removals as it grows.
        var waiting = WaitingTransfers()
        let limit = max(1, configuration.maxActiveTransfers)
        // Cancellations that arrived before their transfer did.
        var cancelledEarly: Set<UInt64> = []
        var running: Int32 = 0
        #if os(Linux)
            let socketLoop = self.socketLoop?.loop
        #endif
        /// Gives a transfer its easy handle and libcurl a place for it.
        func start(_ transfer: CurlTransfer) {
            do {
                try transfer.activate()
            } catch {
                transfer.fail(error)
                return
            }
            guard let handle = transfer.handle else { return }
            active[transfer.id] = transfer
            curl_multi_add_handle(multi, handle)
        }
        while true {
            // One lock for the jobs and the commands; jobs run first, and
            // what they add is taken in this same iteration.
            var (jobs, commands, stopping) = queue.withLock { queue in
                defer {
                    queue.jobs = []
                    queue.commands = []
                }
                return (queue.jobs, queue.commands, queue.stopping)
            }
            if !jobs.isEmpty {
                for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
                jobs = []
                let (added, nowStopping) = queue.withLock { queue in
                    defer { queue.commands = [] }
                    return (queue.commands, queue.stopping)
                }
                commands += added
                stopping = nowStopping
            }
            for command in commands {
                switch command {
                case .add(let box):
                    let id = box.transfer.id
                    if cancelledEarly.remove(id) != nil {
                        box.transfer.fail(TransportError(.cancelled, "the request was cancelled"))
                        continue
                    }
                    if active.count < limit {
                        start(box.transfer)
                    } else {
                        waiting.append(box.transfer)
                    }
                case .resume(let id):
                    // libcurl may deliver the held bytes inside this call.
                    if let transfer = active[id], let handle = transfer.handle {
                        curl_easy_pause(handle, CURLPAUSE_CONT)
                    }
                case .cancel(let id):
                    let transfer: CurlTransfer
                    if let running = active.removeValue(forKey: id) {
                        if let handle = running.handle { curl_multi_remove_handle(multi, handle) }
                        transfer = running
                    } else if let queued = waiting.remove(id: id) {
                        transfer = queued
                    } else {
                        cancelledEarly.insert(id)
                        continue
                    }
                    transfer.fail(TransportError(.cancelled, "the request was cancelled"))
                }
            }
            if stopping {
                for transfer in Array(active.values) + waiting.drain() {
                    if let handle = transfer.handle { curl_multi_remove_handle(multi, handle) }
                    transfer.fail(TransportError(.cancelled, "the transport shut down"))
                }
                active = [:]
                let (waiters, jobs) = queue.withLock { queue in
                    queue.stopped = true
                    defer { queue.jobs = [] }
                    return (
                        finished.withLock { waiters in
                            defer { waiters = [] }
                            return waiters
                        }, queue.jobs
                    )
                }
                // No producer can claim a wake-up any more; let those that did
                // finish theirs (one system call each) before the handle goes.
                while wakersInFlight.load(ordering: .acquiring) > 0 { sched_yield() }
                curl_multi_cleanup(multi)
                #if os(Linux)
                    // The cleanup may still report sockets to the loop.
                    withExtendedLifetime(socketLoop) {}
                    epoll?.close()
                #endif
                // Jobs that arrived during the shutdown go to the global executor.
                for job in jobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
                for waiter in waiters { waiter.resume() }
                return
            }
            // The epoll loop waits first and reads completions after; the
            // poll loop performs, reads completions, then waits.
            #if os(Linux)
                if let socketLoop {
                    // Published before a sleep: what the commands changed is
                    // visible while the loop waits (the poll loop publishes
                    // after its perform, also before waiting).
                    counts.store(active.count, ordering: .relaxed)
                    waitingCount.store(waiting.count, ordering: .relaxed)
                    let sleep = mayWait()
                    socketLoop.turn(mayWait: sleep, active: active.count)
                    if sleep { sleeping.store(false, ordering: .relaxed) }
                } else {
                    curl_multi_perform(multi, &running)
                }
            #else
                curl_multi_perform(multi, &running)
            #endif
            var completed: [(CheckedContinuation<RawResponse, any Error>, Result<RawResponse, any Error>)] =
                []
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else {
                    continue
                }
                let result = courier_message_result(message)
                var context: UnsafeMutableRawPointer?
                _ = courier_easy_getinfo_pointer(handle, CURLINFO_PRIVATE, &context)
                guard let context else { continue }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                curl_multi_remove_handle(multi, handle)
                active.removeValue(forKey: transfer.id)
                while active.count < limit, let next = waiting.popFirst() { start(next) }
                if transfer.isStreaming {
                    // The head went to the caller already: the body's reader hears the end.
                    transfer.endStream(transfer.outcome(result))
                } else if let continuation = transfer.continuation {
                    transfer.continuation = nil
                    if transfer.sentFromEngineThread {
                        // Its task runs here: resuming only queues a job on this thread.
                        continuation.resume(with: transfer.outcome(result))
                    } else {
                        completed.append((continuation, transfer.outcome(result)))
                    }
                }
            }
            // One task resumes every completion of this iteration: the callers'
            // jobs are enqueued from the pool instead of one cross-thread
            // wake-up each.
            if completed.count == 1, let (continuation, outcome) = completed.first {
                continuation.resume(with: outcome)
            } else if !completed.isEmpty {
                let batch = Completions(items: completed)
                Task { for (continuation, outcome) in batch.items { continuation.resume(with: outcome) } }
            }
            counts.store(active.count, ordering: .relaxed)
            waitingCount.store(waiting.count, ordering: .relaxed)
            #if os(Linux)
                if socketLoop != nil { continue }
            #endif
            if mayWait() {
                var descriptors: Int32 = 0
                curl_multi_poll(multi, nil, 0, 1000, &descriptors)
                sleeping.store(false, ordering: .relaxed)
            }
        }
    }

    /// Whether the engine may sleep: only with no work queued. Producers
    /// wake it only when this says it sleeps (``claimWakeUp()``).
    private func mayWait() -> Bool {
        queue.withLock { queue in
            guard queue.commands.isEmpty, queue.jobs.isEmpty, !queue.stopping else { return false }
            sleeping.store(true, ordering: .relaxed)
            return true
        }
    }
}
