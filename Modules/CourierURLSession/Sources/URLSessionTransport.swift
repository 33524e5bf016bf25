import CourierCore
import Foundation
import HTTPTypes
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``Transport`` over URLSession (FoundationNetworking on Linux).
///
/// Redirects are followed by Courier's ``RedirectPolicy``, not by URLSession,
/// so the cross-origin rules match every other transport. The per-request
/// timeout is a total deadline, enforced by the transport (URLSession's own
/// timeout only measures idle time). Gaps on Linux are listed in the
/// module's README.
public final class URLSessionTransport: Transport {
    private let session: URLSession
    private let delegate: SessionDelegate
    private let redirects: RedirectPolicy

    /// Creates a transport with its own ephemeral session.
    public init(configuration: URLSessionConfiguration = .ephemeral, redirects: RedirectPolicy = .follow) {
        let delegate = SessionDelegate()
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        self.delegate = delegate
        self.redirects = redirects
    }

    /// Creates a transport with custom TLS trust or a client certificate.
    ///
    /// - Throws: ``TransportError/Code/unsupported`` for anything but
    ///   ``TLSSettings/system``. On Linux, FoundationNetworking does not hand
    ///   server-trust or client-certificate challenges to the delegate, so a
    ///   private CA, pins or mutual TLS cannot be honoured; on Apple platforms
    ///   Courier does not implement them yet. Use `CurlTransport`, which can.
    public convenience init(
        configuration: URLSessionConfiguration = .ephemeral, redirects: RedirectPolicy = .follow,
        tls: TLSSettings
    ) throws(TransportError) {
        guard tls == .system else {
            throw TransportError(
                .unsupported,
                "URLSessionTransport cannot apply a CA bundle, a client certificate or pinned keys; use CurlTransport"
            )
        }
        self.init(configuration: configuration, redirects: redirects)
    }

    /// A process-wide transport.
    public static let shared = URLSessionTransport()

    /// Sends the request; see ``Transport`` for the contract.
    public func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
        try Task.checkCancellation()
        if options.cancellation?.isCancelled == true { throw CancellationError() }
        return try await redirects.exchange(request, bodyLimit: options.maxBodySize) { request in
            try await perform(request, options: options)
        }
    }

    /// Cancels everything and invalidates the session.
    public func shutdown() { session.invalidateAndCancel() }

    private func perform(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
        var urlRequest = try Self.urlRequest(request, options: options)
        var spooled: URL?
        defer { if let spooled { try? FileManager.default.removeItem(at: spooled) } }
        var source: BodySpool.Source?
        if let body = request.body { source = try await BodySpool.prepare(body) }
        if case .file(let url, true) = source { spooled = url }
        let task: URLSessionTask
        switch (source, options.destination) {
        case (nil, nil): task = session.dataTask(with: urlRequest)
        case (.data(let data), nil): task = session.uploadTask(with: urlRequest, from: data)
        case (.file(let url, _), nil): task = session.uploadTask(with: urlRequest, fromFile: url)
        case (let source, _?):
            // A download task takes its body from the request itself.
            switch source {
            case .data(let data): urlRequest.httpBody = data
            case .file(let url, _): urlRequest.httpBodyStream = InputStream(url: url)
            case nil: break
            }
            task = session.downloadTask(with: urlRequest)
        }
        let state = TaskState(options: options, uploadTotal: request.body?.length)
        let deadline = options.timeout.map { timeout in
            Task {
                try await Task.sleep(for: timeout)
                state.abort(TransportError(.timedOut, "no complete response within \(timeout)"))
                delegate.cancelInBackground(task)
            }
        }
        defer { deadline?.cancel() }
        let sessionDelegate = delegate
        return try await options.withCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<RawResponse, any Error>) in
                state.start(continuation)
                delegate.register(state, for: task.taskIdentifier)
                task.resume()
            }
        } onCancel: {
            state.abort(TransportError(.cancelled, "the request was cancelled"))
            sessionDelegate.cancelInBackground(task)
        }
    }

    private static func urlRequest(_ request: OutgoingRequest, options: TransportOptions)
        throws(TransportError)
        -> URLRequest
    {
        let head = request.head
        guard let scheme = head.scheme, let authority = head.authority, let path = head.path,
            let url = URL(string: "\(scheme)://\(authority)\(path)")
        else { throw TransportError(.other, "the request has no valid URL") }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = head.method.rawValue
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        if let timeout = options.timeout {
            let (seconds, attoseconds) = timeout.components
            urlRequest.timeoutInterval = max(0.001, Double(seconds) + Double(attoseconds) / 1e18)
        }
        for field in head.headerFields {
            if field.value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
                throw TransportError(.other, "header \(field.name) contains CR, LF or NUL")
            }
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        return urlRequest
    }
}

/// One task's progress and outcome, shared by the delegate and the caller.
final class TaskState: Sendable {
    private struct Storage {
        var continuation: CheckedContinuation<RawResponse, any Error>?
        /// The response head, converted once, and why it must be refused, if it must.
        var head: HTTPResponse?
        var headProblem: TransportError?
        var body: [UInt8] = []
        var file: URL?
        var failure: TransportError?
        var received: Int64 = 0
    }

    let options: TransportOptions
    let uploadTotal: Int64?
    private let storage = Mutex(Storage())

    init(options: TransportOptions, uploadTotal: Int64?) {
        self.options = options
        self.uploadTotal = uploadTotal
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
    /// returns why it must be refused, if it must.
    @discardableResult
    func received(_ response: HTTPURLResponse) -> TransportError? {
        storage.withLock { storage in
            if storage.head == nil {
                let fields = Self.fields(response)
                storage.head = HTTPResponse(status: .init(code: response.statusCode), headerFields: fields)
                do throws(TransportError) {
                    try ResponseHeadCheck.validate(fields)
                } catch {
                    storage.headProblem = error
                }
            }
            return storage.headProblem
        }
    }

    private static func fields(_ response: HTTPURLResponse) -> HTTPFields {
        var fields = HTTPFields()
        for (key, value) in response.allHeaderFields {
            guard let text = key as? String, let name = HTTPField.Name(text), let value = value as? String
            else {
                continue
            }
            fields.append(HTTPField(name: name, value: value))
        }
        return fields
    }

    /// Records how many bytes a download has written so far.
    func wrote(_ total: Int64) { storage.withLock { $0.received = total } }

    /// Fails the caller at once with `error`; the task is cancelled separately.
    func abort(_ error: TransportError) {
        fail(error)
        finish(error: nil)
    }

    /// What became of bytes handed to ``append(_:)``.
    enum Appended {
        /// Kept.
        case kept
        /// Over the size limit: the caller has been failed; cancel the task.
        case overflowed
        /// Dropped: the exchange has already failed.
        case dropped
    }

    /// Appends body bytes, up to the size limit.
    func append(_ data: Data) -> Appended {
        let (appended, total) = storage.withLock { storage -> (Appended, Int64) in
            guard storage.failure == nil else { return (.dropped, storage.received) }
            guard storage.body.count + data.count <= options.maxBodySize else {
                storage.failure = TransportError(
                    .bodyTooLarge, "the body exceeds \(options.maxBodySize) bytes")
                return (.overflowed, storage.received)
            }
            storage.body += data
            storage.received += Int64(data.count)
            return (.kept, storage.received)
        }
        switch appended {
        case .kept: options.progress?(TransferProgress(direction: .download, completed: total, total: nil))
        case .overflowed: finish(error: nil)
        case .dropped: break
        }
        return appended
    }

    func downloaded(to location: URL) {
        guard let destination = options.destination else { return }
        do {
            try destination.prepare()
            try FileManager.default.moveItem(at: location, to: destination.url)
            storage.withLock { $0.file = destination.url }
        } catch let error as TransportError {
            fail(error)
        } catch {
            fail(TransportError(.fileSystem, "moving the download failed: \(error)"))
        }
    }

    func finish(error: (any Error)?) {
        let (continuation, outcome) = storage.withLock {
            storage -> (CheckedContinuation<RawResponse, any Error>?, Result<RawResponse, any Error>) in
            defer { storage.continuation = nil }
            if let failure = storage.failure { return (storage.continuation, .failure(failure)) }
            if let error { return (storage.continuation, .failure(URLErrorMapping.map(error))) }
            if let problem = storage.headProblem { return (storage.continuation, .failure(problem)) }
            guard let head = storage.head else {
                return (storage.continuation, .failure(TransportError(.emptyResponse, "no response")))
            }
            let body: ResponseBody = storage.file.map { .file($0) } ?? .bytes(storage.body)
            let metrics = TransportMetrics(bytesReceived: storage.received)
            return (storage.continuation, .success(RawResponse(head: head, body: body, metrics: metrics)))
        }
        continuation?.resume(with: outcome)
    }
}
