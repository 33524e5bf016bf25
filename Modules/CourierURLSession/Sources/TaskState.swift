@_spi(Locking) @_spi(Transport) import CourierCore
import Foundation
import HTTPTypes
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One task's progress and outcome, shared by the delegate and the caller.
final class TaskState: Sendable {
    private struct Storage {
        var continuation: CheckedContinuation<RawResponse, any Error>?
        /// The response head, converted once, and why it must be refused, if it must.
        var head: HTTPResponse?
        /// The download progress's total, from the head (``TransferProgress/downloadTotal(of:)``).
        var expectedLength: Int64?
        /// A coded body's announced length: what a download's expansion is
        /// counted against (``DownloadExpansionLimit``).
        var codedLength: Int64?
        var headProblem: TransportError?
        var body: [UInt8] = []
        /// Where a download is being written, when the request has a destination.
        var download: PartialDownload?
        var failure: TransportError?
        var received: Int64 = 0
        /// From the task's start to its response head (``TransportMetrics/timeToFirstByte``).
        var firstByte: Duration?
        /// The delegate declined an authentication challenge, which
        /// FoundationNetworking can only do by cancelling the finished task.
        var declinedChallenge = false
    }

    let options: TransportOptions
    let uploadTotal: Int64?
    private let storage: Locked<Storage>
    /// For a streamed body: where its bytes go, once the head has been handed over.
    let tap: StreamTap?
    /// Called once the session reports the task ended (its connection free again).
    private let whenTaskEnds: @Sendable () -> Void
    /// The idle timeout's watch, when the options have one: the delegate
    /// reports every byte that moves (``moved()``).
    let watchdog: IdleWatchdog?
    /// The total timeout's end, checked again when the response is complete:
    /// the timer that cuts the task may run late on a loaded machine.
    let deadline: TotalDeadline?
    /// When the task was made: its metrics' `total` and `timeToFirstByte`
    /// count from here (URLSession on Linux reports no task metrics).
    private let started = ContinuousClock.now

    init(
        options: TransportOptions, uploadTotal: Int64?, download: sending PartialDownload?,
        deadline: TotalDeadline? = nil, tap: StreamTap? = nil, whenTaskEnds: @escaping @Sendable () -> Void
    ) {
        self.options = options
        self.uploadTotal = uploadTotal
        self.storage = Locked(Storage(download: download))
        self.tap = tap
        self.whenTaskEnds = whenTaskEnds
        self.deadline = deadline
        watchdog = options.idleTimeout.map { IdleWatchdog(limit: $0, clock: options.clock) }
    }

    /// Bytes went out or came in (request body, head, response body).
    func moved() { watchdog?.touch() }

    /// The session reported the task's end (success, failure or cancellation).
    func taskEnded(error: (any Error)?) {
        finish(error: error)
        whenTaskEnds()
    }

    /// For a streamed body: the head is in and acceptable, so the caller gets
    /// it now; the body follows through the tap.
    func headArrived() {
        guard tap != nil else { return }
        let (continuation, head) = storage.withLock { storage in
            guard storage.headProblem == nil, storage.failure == nil, let head = storage.head else {
                return (CheckedContinuation<RawResponse, any Error>?.none, HTTPResponse?.none)
            }
            defer { storage.continuation = nil }
            return (storage.continuation, head)
        }
        if let continuation, let head { continuation.resume(returning: RawResponse(head: head)) }
    }

    /// A download's bound on decoded bytes per coded byte.
    private var expansion: DownloadExpansionLimit? { options.downloadExpansionLimit }

    /// The largest body this task may receive: on disk, or in memory.
    private var limit: Int64? {
        options.destination == nil ? Int64(options.maxBodySize) : options.maxDownloadSize
    }

    func start(_ continuation: CheckedContinuation<RawResponse, any Error>) {
        let failure = storage.withLock { storage in
            storage.continuation = continuation
            return storage.failure
        }
        if failure != nil { finish(error: nil) }
    }

    /// Records why the task will end; the first reason wins.
    func fail(_ error: TransportError) {
        storage.withLock { storage in
            if storage.failure == nil { storage.failure = error }
        }
    }

    /// Records the response head (converted and checked by ``ResponseHeadCheck``
    /// the first time only: the delegate reports it more than once) and
    /// returns why it must be refused, if it must: ambiguous framing, or a
    /// length announced over the limit (refused before any body byte).
    @discardableResult
    func received(_ response: HTTPURLResponse) -> TransportError? {
        let limit = self.limit
        return storage.withLock { storage in
            if storage.head == nil {
                storage.firstByte = ContinuousClock.now - started
                let fields = Self.fields(response)
                storage.head = HTTPResponse(status: .init(code: response.statusCode), headerFields: fields)
                storage.expectedLength = TransferProgress.downloadTotal(of: fields)
                // The library under URLSession undoes the coding: the coded
                // length it announces is all there is to count against.
                if fields[.contentEncoding] != nil {
                    storage.codedLength =
                        (try? ResponseHeadCheck.contentLength(fields[values: .contentLength])).flatMap { $0 }
                        .map(Int64.init)
                }
                storage.download?.head = storage.head
                do throws(TransportError) {
                    try ResponseHeadCheck.validate(fields)
                    if let limit,
                        let length = try ResponseHeadCheck.contentLength(fields[values: .contentLength]),
                        Int64(length) > limit
                    {
                        throw TransportError(
                            .bodyTooLarge,
                            "the response announces \(length) bytes, over the limit of \(limit)")
                    }
                } catch {
                    storage.headProblem = error
                }
            }
            return storage.headProblem
        }
    }

    static func fields(_ response: HTTPURLResponse) -> HTTPFields {
        var fields = HTTPFields()
        for (key, value) in response.allHeaderFields {
            guard let text = key as? String, let name = HTTPField.Name(text), let value = value as? String
            else {
                continue
            }
            // FoundationNetworking joins repeated fields with commas; for
            // Set-Cookie that is not equivalent (RFC 9110 §5.3): take them apart.
            let values = name == .setCookie ? SetCookieSplitter.split(value) : [value]
            for value in values { fields.append(HTTPField(name: name, value: value)) }
        }
        return fields
    }

    /// Records that an authentication challenge was declined: the response
    /// it challenges is complete, and the cancellation that follows is how
    /// FoundationNetworking ends such a task, not a failure.
    func declinedChallenge() {
        storage.withLock { $0.declinedChallenge = true }
    }

    /// Fails the caller at once with `error`; the task is cancelled separately.
    func abort(_ error: TransportError) {
        fail(error)
        finish(error: nil)
    }

    /// What became of bytes handed to ``append(_:)``.
    enum Appended {
        /// Kept.
        case kept
        /// Over the size limit, or not writable: the caller has been failed; cancel the task.
        case overflowed
        /// Dropped: the exchange has already failed.
        case dropped
    }

    /// Appends body bytes — to memory, or to the download's file — up to the limit.
    func append(_ data: Data) -> Appended {
        let limit = self.limit
        let (appended, total, expected) = storage.withLock { storage -> (Appended, Int64, Int64?) in
            let expected = storage.expectedLength
            guard storage.failure == nil else { return (.dropped, storage.received, expected) }
            if let limit, storage.received + Int64(data.count) > limit {
                storage.failure = TransportError(
                    .bodyTooLarge,
                    storage.download == nil
                        ? "the body exceeds \(limit) bytes" : "the download exceeds \(limit) bytes")
                return (.overflowed, storage.received, expected)
            }
            if let tap {
                storage.received += Int64(data.count)
                return (tap.take(Array(data)) ? .kept : .overflowed, storage.received, expected)
            }
            if let download = storage.download {
                do throws(TransportError) {
                    if let expansion, let coded = storage.codedLength,
                        let failure = expansion.failure(
                            decoded: storage.received + Int64(data.count), coded: coded)
                    {
                        throw failure
                    }
                    try download.write(Array(data))
                } catch {
                    storage.failure = error
                    return (.overflowed, storage.received, expected)
                }
            } else {
                storage.body += data
            }
            storage.received += Int64(data.count)
            return (.kept, storage.received, expected)
        }
        switch appended {
        case .kept:
            options.progress?(TransferProgress(direction: .download, completed: total, total: expected))
        case .overflowed: finish(error: nil)
        case .dropped: break
        }
        return appended
    }

    /// Resumes the caller once: with the response (a download moved into
    /// place first), or with the first failure (a download's file removed).
    func finish(error: (any Error)?) {
        let (continuation, outcome) = storage.withLock {
            storage -> (CheckedContinuation<RawResponse, any Error>?, Result<RawResponse, any Error>) in
            defer { storage.continuation = nil }
            let outcome = Self.outcome(&storage, error: error, deadline: deadline, started: started)
            if case .failure = outcome { storage.download?.discard() }
            return (storage.continuation, outcome)
        }
        continuation?.resume(with: outcome)
        if let tap {
            switch outcome {
            case .success: tap.end(nil)
            case .failure(let error):
                tap.end(error as? TransportError ?? TransportError(.other, "\(error)"))
            }
        }
    }

    private static func isCancellation(_ error: any Error) -> Bool {
        (error as? URLError)?.code == .cancelled
    }

    private static func outcome(
        _ storage: inout Storage, error: (any Error)?, deadline: TotalDeadline?,
        started: ContinuousClock.Instant
    )
        -> Result<RawResponse, any Error>
    {
        if let failure = storage.failure { return .failure(failure) }
        if let error, !(storage.declinedChallenge && storage.head != nil && Self.isCancellation(error)) {
            return .failure(URLErrorMapping.map(error))
        }
        if let problem = storage.headProblem { return .failure(problem) }
        guard let head = storage.head else { return .failure(TransportError(.emptyResponse, "no response")) }
        // Complete, but after the end: late, however late the timer is.
        do throws(TransportError) { try deadline?.check() } catch { return .failure(error) }
        var body = ResponseBody.bytes(storage.body)
        if let download = storage.download {
            // Checked against Content-Length when the bytes are not decoded.
            let identity =
                head.headerFields[.contentEncoding] == nil && head.status.code != 204
                && head.status.code != 304
            let length = try? ResponseHeadCheck.contentLength(head.headerFields[values: .contentLength])
            do throws(TransportError) {
                body = .file(
                    try download.commit(
                        expectedLength: identity ? length.flatMap { $0 }.map(Int64.init) : nil))
            } catch {
                return .failure(error)
            }
        }
        let metrics = TransportMetrics(
            total: ContinuousClock.now - started, timeToFirstByte: storage.firstByte,
            bytesReceived: storage.received)
        return .success(RawResponse(head: head, body: body, metrics: metrics))
    }
}
