import CCurl
@_spi(Locking) @_spi(Transport) import CourierCore
import Foundation
import Synchronization

/// What only the engine thread touches: the transfers in libcurl, those
/// waiting for a place, and cancellations that arrived before their transfer.
struct EngineThreadState {
    /// Transfers in libcurl, by id.
    var active: [UInt64: CurlTransfer] = [:]
    /// Transfers over the limit wait here, not in libcurl's pending list,
    /// which costs more memory per request and slows removals as it grows.
    var waiting = WaitingTransfers()
    /// Cancellations that arrived before their transfer did, and why.
    var cancelledEarly: [UInt64: TransportError] = [:]
    /// At most this many transfers in libcurl at once.
    let limit: Int
}

/// A continuation and the outcome it is to be resumed with.
typealias CurlCompletion = (CheckedContinuation<RawResponse, any Error>, Result<RawResponse, any Error>)

extension CurlEngine {
    /// The engine thread's loop, one turn an iteration: take the queued work,
    /// apply it, let libcurl move the sockets, hand completed transfers back,
    /// and sleep when there is nothing to do. Returns after a shutdown.
    func run() {
        var state = EngineThreadState(limit: max(1, configuration.maxActiveTransfers))
        while true {
            let (commands, stopping) = takeQueuedWork()
            apply(commands, to: &state)
            if stopping {
                stop(&state)
                return
            }
            driveSockets(&state)
            resume(collectCompletions(&state))
            publishCounts(state)
            pollWhenIdle()
        }
    }

    /// Runs the jobs of tasks that prefer this executor, then returns the
    /// commands queued so far (those the jobs added included) and whether a
    /// shutdown was asked for. One lock when there are no jobs.
    private func takeQueuedWork() -> (commands: [Command], stopping: Bool) {
        let (jobs, commands, stopping) = queue.withLock { queue in
            defer {
                queue.jobs = []
                queue.commands = []
            }
            return (queue.jobs, queue.commands, queue.stopping)
        }
        guard !jobs.isEmpty else { return (commands, stopping) }
        for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        let (added, nowStopping) = queue.withLock { queue in
            defer { queue.commands = [] }
            return (queue.commands, queue.stopping)
        }
        return (commands + added, nowStopping)
    }

    /// Adds, resumes and cancels transfers, in the order the commands came.
    private func apply(_ commands: [Command], to state: inout EngineThreadState) {
        for command in commands {
            switch command {
            case .add(let box):
                if let reason = state.cancelledEarly.removeValue(forKey: box.transfer.id) {
                    box.transfer.fail(reason)
                } else if state.active.count < state.limit {
                    start(box.transfer, in: &state)
                } else {
                    state.waiting.append(box.transfer)
                }
            case .resume(let id):
                // A drain that came before the buffer filled again is stale:
                // the transfer stays paused, and the reader's next drain of
                // the buffer asks again. (Resumed anyway, a decoded body
                // would add another read's worth to a full buffer.)
                // libcurl may deliver the held bytes inside this call.
                if let transfer = state.active[id], let handle = transfer.handle,
                    transfer.stream?.isHoldingBack != true, transfer.pauseRequest?.isPaused != true
                {
                    curl_easy_pause(handle, CURLPAUSE_CONT)
                }
            case .applyPause(let id):
                // A transfer still waiting for a place, or gone, has nothing
                // to pause: `start` applies the request when it gets one.
                if let transfer = state.active[id] { transfer.applyPause() }
            case .cancel(let id, let reason):
                cancel(id, because: reason, in: &state)
            }
        }
    }

    /// Fails the transfer with `id` wherever it is; remembers the id when it
    /// has not arrived yet.
    private func cancel(_ id: UInt64, because reason: TransportError, in state: inout EngineThreadState) {
        let transfer: CurlTransfer
        if let running = state.active.removeValue(forKey: id) {
            if let handle = running.handle { curl_multi_remove_handle(multi, handle) }
            transfer = running
        } else if let queued = state.waiting.remove(id: id) {
            transfer = queued
        } else {
            state.cancelledEarly[id] = reason
            return
        }
        transfer.fail(reason)
    }

    /// Gives a transfer its easy handle and libcurl a place for it.
    private func start(_ transfer: CurlTransfer, in state: inout EngineThreadState) {
        do {
            try transfer.activate()
        } catch {
            transfer.fail(error)
            return
        }
        guard let handle = transfer.handle else { return }
        state.active[transfer.id] = transfer
        curl_multi_add_handle(multi, handle)
        if transfer.pauseRequest?.isPaused == true { transfer.applyPause() }
    }

    /// Lets libcurl move data: the epoll loop waits for sockets first (it may
    /// sleep here) and runs libcurl on the ready ones; the poll loop performs
    /// now and waits later (``pollWhenIdle()``).
    private func driveSockets(_ state: inout EngineThreadState) {
        #if os(Linux)
            if let socketLoop = socketLoop?.loop {
                // Published before a sleep: what the commands changed is
                // visible while the loop waits (the poll loop publishes
                // after its perform, also before waiting).
                publishCounts(state)
                let sleep = mayWait()
                socketLoop.turn(mayWait: sleep, active: state.active.count)
                if sleep { sleeping.store(false, ordering: .relaxed) }
                return
            }
        #endif
        var running: Int32 = 0
        curl_multi_perform(multi, &running)
    }

    /// Makes the transfer counts the transport reports match this thread's state.
    private func publishCounts(_ state: EngineThreadState) {
        counts.store(state.active.count, ordering: .relaxed)
        waitingCount.store(state.waiting.count, ordering: .relaxed)
    }

    /// Takes every finished transfer out of libcurl, starts waiting ones in
    /// their places, and returns the continuations to resume off this thread.
    ///
    /// The transfer comes back from `CURLINFO_PRIVATE` unretained: it is
    /// still in `state.active` (a strong reference) until the line below
    /// removes it, and the caller keeps it too until its continuation is
    /// resumed (`CurlTransfer` says why).
    private func collectCompletions(_ state: inout EngineThreadState) -> [CurlCompletion] {
        var completed: [CurlCompletion] = []
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
            state.active.removeValue(forKey: transfer.id)
            while state.active.count < state.limit, let next = state.waiting.popFirst() {
                start(next, in: &state)
            }
            if transfer.isStreaming {
                // The head went to the caller already: the body's reader hears the end.
                transfer.endStream(transfer.outcome(result))
            } else if transfer.continuation != nil {
                let outcome = transfer.outcome(result)
                guard let continuation = transfer.handOver() else { continue }
                if transfer.sentFromEngineThread {
                    // Its task runs here: resuming only queues a job on this thread.
                    continuation.resume(with: outcome)
                } else {
                    completed.append((continuation, outcome))
                }
            }
        }
        return completed
    }

    /// One task resumes every completion of an iteration: the callers' jobs
    /// are enqueued from the pool instead of one cross-thread wake-up each.
    private func resume(_ completed: [CurlCompletion]) {
        if completed.count == 1, let (continuation, outcome) = completed.first {
            continuation.resume(with: outcome)
        } else if !completed.isEmpty {
            let batch = Completions(items: completed)
            Task { for (continuation, outcome) in batch.items { continuation.resume(with: outcome) } }
        }
    }

    /// The poll loop's sleep: in `curl_multi_poll` until a socket is ready,
    /// a producer wakes it, or a second passes. The epoll loop slept in
    /// ``driveSockets(_:)`` already.
    private func pollWhenIdle() {
        #if os(Linux)
            if socketLoop != nil { return }
        #endif
        guard mayWait() else { return }
        var descriptors: Int32 = 0
        curl_multi_poll(multi, nil, 0, 1000, &descriptors)
        sleeping.store(false, ordering: .relaxed)
    }

    /// Fails every transfer in flight or waiting, closes the queue, cleans the
    /// multi handle up once no producer is mid wake-up, hands late jobs to
    /// the global executor and resumes those waiting in ``shutdown()``.
    private func stop(_ state: inout EngineThreadState) {
        for transfer in Array(state.active.values) + state.waiting.drain() {
            if let handle = transfer.handle { curl_multi_remove_handle(multi, handle) }
            transfer.fail(TransportError(.cancelled, "the transport shut down"))
        }
        state.active = [:]
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
