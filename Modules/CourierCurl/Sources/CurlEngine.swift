import CCurl
import CourierCore
import Foundation
import Synchronization

/// Drives one libcurl multi handle on a thread of its own. Callers hand it
/// transfers and cancellations through a locked queue and wake it with
/// `curl_multi_wakeup`; it resumes their continuations when transfers end.
/// No libcurl call ever runs on the Swift concurrency pool.
final class CurlEngine: Sendable {
    private enum Command {
        case add(UInt64)
        case cancel(UInt64)
    }

    private struct Queue {
        var commands: [Command] = []
        var nextID: UInt64 = 1
        var stopping = false
        var stopped = false
        /// The engine thread is in (or about to enter) `curl_multi_poll`:
        /// only then does new work need a wake-up.
        var sleeping = false
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
    private let queue = Mutex(Queue())
    /// Boxed transfers waiting in the queue (parallel to `Queue.commands`).
    private let handoff = Mutex<[UInt64: TransferBox]>([:])
    private let finished = Mutex<[CheckedContinuation<Void, Never>]>([])

    init(configuration: CurlTransport.Configuration) throws(TransportError) {
        curl_global_init(Int(CURL_GLOBAL_ALL))
        guard let multi = curl_multi_init() else { throw TransportError(.other, "curl_multi_init failed") }
        self.multiHandle = MultiHandle(pointer: multi)
        self.configuration = configuration
        _ = courier_multi_setopt_long(
            multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        _ = courier_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxConnections)
        _ = courier_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxConnections)
        let thread = Thread { [self] in self.run() }
        thread.name = "courier-curl"
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
        // Wake-ups happen under the lock, and the handle is cleaned up under
        // it too, so a wake-up never reaches a freed handle.
        queue.withLock { queue in
            guard !queue.stopping else { return false }
            handoff.withLock { $0[transfer.id] = TransferBox(transfer: transfer) }
            queue.commands.append(.add(transfer.id))
            if queue.sleeping {
                queue.sleeping = false
                curl_multi_wakeup(multi)
            }
            return true
        }
    }

    func cancel(_ id: UInt64) {
        queue.withLock { queue in
            guard !queue.stopping else { return }
            queue.commands.append(.cancel(id))
            if queue.sleeping {
                queue.sleeping = false
                curl_multi_wakeup(multi)
            }
        }
    }

    /// Stops the thread after failing every transfer in flight.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyStopped = queue.withLock { queue in
                if queue.stopped { return true }
                if !queue.stopping { curl_multi_wakeup(multi) }
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
        // Cancellations that arrived before their transfer did.
        var cancelledEarly: Set<UInt64> = []
        var running: Int32 = 0
        while true {
            let (commands, stopping) = queue.withLock { queue in
                defer { queue.commands = [] }
                return (queue.commands, queue.stopping)
            }
            for command in commands {
                switch command {
                case .add(let id):
                    guard let box = handoff.withLock({ $0.removeValue(forKey: id) }) else { continue }
                    if cancelledEarly.remove(id) != nil {
                        box.transfer.continuation?.resume(
                            throwing: TransportError(.cancelled, "the request was cancelled"))
                        box.transfer.continuation = nil
                        continue
                    }
                    active[id] = box.transfer
                    curl_multi_add_handle(multi, box.transfer.handle)
                case .cancel(let id):
                    guard let transfer = active.removeValue(forKey: id) else {
                        cancelledEarly.insert(id)
                        continue
                    }
                    curl_multi_remove_handle(multi, transfer.handle)
                    transfer.continuation?.resume(
                        throwing: TransportError(.cancelled, "the request was cancelled"))
                    transfer.continuation = nil
                }
            }
            if stopping {
                for transfer in active.values {
                    curl_multi_remove_handle(multi, transfer.handle)
                    transfer.continuation?.resume(
                        throwing: TransportError(.cancelled, "the transport shut down"))
                    transfer.continuation = nil
                }
                active = [:]
                let waiters = queue.withLock { queue in
                    curl_multi_cleanup(multi)
                    queue.stopped = true
                    return finished.withLock { waiters in
                        defer { waiters = [] }
                        return waiters
                    }
                }
                for waiter in waiters { waiter.resume() }
                return
            }
            curl_multi_perform(multi, &running)
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
                if let continuation = transfer.continuation {
                    transfer.continuation = nil
                    completed.append((continuation, outcome(of: transfer, result: result)))
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
            // Sleep only with no work queued; producers wake the poll only
            // when this flag says it sleeps.
            let sleep = queue.withLock { queue in
                guard queue.commands.isEmpty, !queue.stopping else { return false }
                queue.sleeping = true
                return true
            }
            if sleep {
                var descriptors: Int32 = 0
                curl_multi_poll(multi, nil, 0, 1000, &descriptors)
                queue.withLock { $0.sleeping = false }
            }
        }
    }

    private func outcome(of transfer: CurlTransfer, result: CURLcode) -> Result<RawResponse, any Error> {
        if result == CURLE_OK {
            do {
                return .success(try transfer.response())
            } catch {
                return .failure(error)
            }
        }
        if let failure = transfer.failure { return .failure(failure) }
        return .failure(CurlErrorMapping.error(result, detail: transfer.errorDetail))
    }
}

/// The multi handle's pointer.
private struct MultiHandle: @unchecked Sendable {
    // Safe: every libcurl call on this handle runs on the engine thread,
    // except `curl_multi_wakeup`, which libcurl documents as safe to call from
    // any thread while the handle lives; the handle is cleaned up only after
    // the thread has left its loop and `add` refuses new work.
    let pointer: UnsafeMutableRawPointer
}

/// One loop iteration's completions, resumed together.
private struct Completions: Sendable {
    let items: [(CheckedContinuation<RawResponse, any Error>, Result<RawResponse, any Error>)]
}
