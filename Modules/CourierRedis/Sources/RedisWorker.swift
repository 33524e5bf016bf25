@_spi(Locking) import CourierCore
import Dispatch
import Foundation
import Synchronization

/// A Redis client's own thread, as CurlEngine is libcurl's: callers queue
/// commands and suspend; the thread takes every command queued since it last
/// looked, sends them in one write (a pipeline), reads their replies in
/// order and resumes each caller. hiredis blocks; the concurrency pool never
/// does. At most ``RedisLinkSettings/maxPendingOperations`` wait.
///
/// The connection, the loaded scripts and the up/down state belong to the
/// thread alone (locals of ``run()``), so none of them needs a lock.
package final class RedisWorker: Sendable {
    /// What a caller asks of Redis.
    package enum Request: Sendable {
        /// A command, `arguments[0]` its name.
        case command([[UInt8]])
        /// One of ``RedisScripts``, run by its digest (loaded when the server lacks it).
        case script(source: String, keys: [String], arguments: [[UInt8]])
    }

    private struct Job {
        let request: Request
        /// Who waits for the reply; `nil` for a command posted without waiting.
        let continuation: CheckedContinuation<Result<RedisReply, RedisError>, Never>?

        func finish(_ result: Result<RedisReply, RedisError>) { continuation?.resume(returning: result) }
    }

    private struct Queue {
        var jobs: [Job] = []
        var stopping = false
    }

    /// The most commands sent in one write.
    static let batchLimit = 128

    private let configuration: RedisLinkSettings
    private let queue = Locked(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let pending = Atomic(0)
    private let health: any RedisHealthObserver

    package init(_ configuration: RedisLinkSettings, health: any RedisHealthObserver) {
        self.configuration = configuration
        self.health = health
        let thread = Thread { [self] in
            // Named from inside: on Linux a name set before start() is lost.
            Thread.current.name = configuration.threadName
            self.run()
        }
        thread.start()
    }

    /// Runs `request` on the thread and returns its reply.
    /// - Throws: ``RedisError``: `.busy` at once when the
    ///   queue is full, `.unavailable` or `.timeout` when the server is down
    ///   or slow, `.database` for an error reply, `.closed` once stopped.
    package func perform(_ request: Request) async throws(RedisError) -> RedisReply {
        let waiting = pending.add(1, ordering: .relaxed).newValue
        defer { pending.subtract(1, ordering: .relaxed) }
        guard waiting <= configuration.maxPendingOperations else {
            throw RedisError(.busy, "\(configuration.maxPendingOperations) operations already wait for Redis")
        }
        let result = await withCheckedContinuation { continuation in
            let job = Job(request: request, continuation: continuation)
            if !push(job) { job.finish(.failure(RedisError(.closed, "the Redis client was closed"))) }
        }
        return try result.get()
    }

    /// Queues `request` without waiting for its reply (it goes out with the
    /// next batch): for bookkeeping no caller needs to wait for, such as a
    /// read's recency. Dropped when the store is closed.
    package func post(_ request: Request) {
        _ = push(Job(request: request, continuation: nil))
    }

    /// Queues a job and wakes the thread; `false` once the store is stopping.
    private func push(_ job: Job) -> Bool {
        let queued = queue.withLock { queue in
            guard !queue.stopping else { return false }
            queue.jobs.append(job)
            return true
        }
        if queued { wake.signal() }
        return queued
    }

    /// Ends the thread once the commands already queued have run.
    package func stop() {
        queue.withLock { $0.stopping = true }
        wake.signal()
    }

    private func run() {
        var link = RedisLink(configuration, health: health)
        while true {
            wake.wait()
            while true {
                let (jobs, stopping) = queue.withLock { queue in
                    let taken = Array(queue.jobs.prefix(Self.batchLimit))
                    queue.jobs.removeFirst(taken.count)
                    return (taken, queue.stopping && queue.jobs.isEmpty)
                }
                if !jobs.isEmpty { serve(jobs, on: &link) }
                if stopping {
                    link.close()
                    return
                }
                if jobs.count < Self.batchLimit { break }
            }
        }
    }

    /// One batch: every command in one write, the replies in order.
    private func serve(_ jobs: [Job], on link: inout RedisLink) {
        var next = 0
        do throws(RedisLinkFailure) {
            let connection = try link.connected()
            // Building a script's EVALSHA loads the script first if the link has not yet.
            let commands = try jobs.map { job throws(RedisLinkFailure) in
                try link.arguments(for: job.request, on: connection)
            }
            let replies = try link.pipeline(commands, on: connection)
            while next < jobs.count {
                let job = jobs[next]
                var reply = replies[next]
                if case .error(let message) = reply, message.hasPrefix("NOSCRIPT"),
                    let source = job.request.scriptSource
                {
                    // The server forgot the script (a restart, SCRIPT FLUSH): load it again, run this one alone.
                    link.forget(source)
                    reply = try link.pipeline(
                        [link.arguments(for: job.request, on: connection)], on: connection)[0]
                }
                job.finish(Self.result(of: reply))
                next += 1
            }
        } catch {
            for job in jobs[next...] { job.finish(.failure(error.error)) }
        }
    }

    private static func result(of reply: RedisReply) -> Result<RedisReply, RedisError> {
        if case .error(let message) = reply {
            return .failure(RedisError(.database, "Redis answered an error: \(message)"))
        }
        return .success(reply)
    }
}

extension RedisWorker.Request {
    var scriptSource: String? {
        if case .script(let source, _, _) = self { return source }
        return nil
    }
}
