@_spi(Locking) import CourierCore
import Dispatch
import Foundation

/// A thread of a store's own, as a serial executor: the store actor's jobs —
/// every SQLite call and file read or write of the disk store — run on it,
/// so blocking I/O never runs on the Swift concurrency pool (as libcurl runs
/// on CourierCurl's thread).
///
/// Jobs wait in a locked queue; a semaphore wakes the thread, once per job.
/// The thread ends when ``stop()`` is called and the queue is empty.
final class StoreExecutor: SerialExecutor, Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var stopping = false
    }

    private let queue = Locked(Queue())
    private let wake = DispatchSemaphore(value: 0)

    /// Starts the thread, named `name` (as `ps -L` shows it).
    init(name: String) {
        let thread = Thread { [self] in
            // Named from inside: on Linux a name set before start() is lost.
            Thread.current.name = name
            self.run()
        }
        thread.start()
    }

    /// Queues a job of the store actor.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        wake.signal()
    }

    /// Ends the thread once the jobs already queued have run.
    func stop() {
        queue.withLock { $0.stopping = true }
        wake.signal()
    }

    private func run() {
        let executor = asUnownedSerialExecutor()
        while true {
            wake.wait()
            let (jobs, stopping) = queue.withLock { queue in
                defer { queue.jobs.removeAll(keepingCapacity: true) }
                return (queue.jobs, queue.stopping)
            }
            for job in jobs { job.runSynchronously(on: executor) }
            if stopping, queue.withLock({ $0.jobs.isEmpty }) { return }
        }
    }
}
