#if AsyncHTTPClient
    import AsyncHTTPClient
    import CourierContentCoding
    @_spi(Locking) @_spi(Transport) import CourierCore
    import HTTPTypes
    import NIOCore
    import NIOHTTP1
    import NIOPosix

    #if canImport(FoundationEssentials)
        import FoundationEssentials
    #else
        import Foundation
    #endif

    /// One request and its response over an `HTTPClient`: the head checked as
    /// every transport checks it, the body read into memory up to
    /// ``CourierCore/TransportOptions/maxBodySize`` or streamed to the
    /// download's file — written on NIO's thread pool, never on the Swift
    /// concurrency pool.
    struct AHCExchange: Sendable {
        let request: OutgoingRequest
        let options: TransportOptions
        /// The idle timeout's watch, told of every chunk that moves and of the head.
        var watchdog: IdleWatchdog? = nil
        /// The total timeout's end, checked again once the body is complete
        /// (before a download is moved into place): the task racing the
        /// exchange against it may run late on a loaded machine.
        var deadline: TotalDeadline? = nil

        /// Sends `request` through `once`, and once more — reporting it in
        /// ``CourierCore/TransportMetrics/resends`` — when an idempotent
        /// request with a body that can be sent again met a kept-alive
        /// connection that died before any response (no connection was opened
        /// meanwhile, so it went out on an old one): what libcurl does for
        /// CurlTransport (RFC 9110 §9.2.2). Any other request, and a request
        /// a new connection failed, fails with that error, so that Courier's
        /// retry policy decides.
        static func resending(
            _ request: OutgoingRequest, connections: ConnectionCount,
            once: (OutgoingRequest) async throws -> RawResponse
        ) async throws -> RawResponse {
            let before = connections.value
            let idempotent: Set<HTTPRequest.Method> = [.get, .head, .put, .delete, .options, .trace]
            do {
                return try await once(request)
            } catch let early as BeforeHead {
                let error = early.error
                // A kept-alive connection was there to be reused, and none was
                // opened meanwhile: the request went out on an old one. With no
                // connection open at the start, it needed a new one, and a
                // connection that fails while opening is the retry policy's.
                let onAnOldConnection = before.open > 0 && connections.value.opened == before.opened
                guard [.connectionReset, .emptyResponse].contains(error.code), onAnOldConnection,
                    idempotent.contains(request.head.method), request.body?.isReplayable ?? true
                else { throw error }
                do {
                    var response = try await once(request)
                    response.metrics.resends = 1
                    return response
                } catch let again as BeforeHead {
                    throw again.error
                }
            }
        }

        func run(on client: HTTPClient) async throws -> RawResponse {
            // The app's pause: the body loops below stop pulling while it
            // lasts, and the idle timeout stands still.
            let watchdog = self.watchdog
            let pausing = options.transferControl?.attach { paused in
                if paused { watchdog?.suspend() } else { watchdog?.resume() }
            }
            defer { pausing?.remove() }
            let started = ContinuousClock.now
            let (outgoing, sent) = try await prepared()
            let response: HTTPClientResponse
            do {
                response = try await client.execute(outgoing, deadline: .distantFuture)
            } catch {
                throw BeforeHead(
                    error: AHCErrorMapping.map(error, cancelled: Task.isCancelled, beforeHead: true))
            }
            watchdog?.touch()
            let firstByte = ContinuousClock.now - started
            let head = try checkedHead(response)
            if let total = request.body?.length {
                options.progress?(TransferProgress(direction: .upload, completed: total, total: total))
            }
            let (body, received) = try await read(response, head: head)
            let metrics = TransportMetrics(
                total: ContinuousClock.now - started, timeToFirstByte: firstByte, bytesSent: sent.value,
                bytesReceived: received,
                httpVersion: response.version.major == 2
                    ? "2" : "\(response.version.major).\(response.version.minor)")
            return RawResponse(head: head, body: body, metrics: metrics)
        }

        /// The request for async-http-client, and a counter of the body bytes it sends.
        func prepared() async throws -> (HTTPClientRequest, SentBytes) {
            let head = request.head
            guard let scheme = head.scheme, let authority = head.authority, let path = head.path else {
                throw TransportError(.other, "the request has no scheme, authority or path")
            }
            var outgoing = HTTPClientRequest(url: "\(scheme)://\(authority)\(path)")
            outgoing.method = HTTPMethod(rawValue: head.method.rawValue)
            // One `Cookie` field, its crumbs joined (HTTPFields.forEachOnTheWire).
            var headers = HTTPHeaders()
            head.headerFields.forEachOnTheWire { name, value in headers.add(name: name, value: value) }
            // What CurlTransport asks for too; bodies are decoded before any limit is applied.
            if !headers.contains(name: "Accept-Encoding") {
                headers.add(name: "Accept-Encoding", value: ContentDecoder.acceptEncoding)
            }
            outgoing.headers = headers
            let sent = SentBytes()
            if let body = request.body {
                if options.transferControl == nil, let parts = body.parts,
                    parts.allSatisfy({ if case .bytes = $0 { true } else { false } })
                {
                    var buffer = ByteBuffer()
                    for case .bytes(let bytes) in parts { buffer.writeBytes(bytes) }
                    sent.value = Int64(buffer.readableBytes)
                    outgoing.body = .bytes(buffer)
                } else {
                    // Pulled chunk by chunk: a pause holds the next pull.
                    let chunks = ByteBufferChunks(
                        body.chunks(), sent: sent, progress: progressTouchingTheWatchdog, total: body.length,
                        pause: options.transferControl)
                    outgoing.body = .stream(chunks, length: body.length.map { .known($0) } ?? .unknown)
                }
            }
            return (outgoing, sent)
        }

        /// The options' progress, telling the idle timeout's watch first.
        private var progressTouchingTheWatchdog: (@Sendable (TransferProgress) -> Void)? {
            guard let watchdog else { return options.progress }
            let progress = options.progress
            return {
                watchdog.touch()
                progress?($0)
            }
        }

        /// The response head as Courier's types, refused like every
        /// transport refuses one: ambiguous framing, or a length announced
        /// over the limit.
        func checkedHead(_ response: HTTPClientResponse) throws -> HTTPResponse {
            var fields = HTTPFields()
            for header in response.headers {
                guard let name = HTTPField.Name(header.name) else { continue }
                fields.append(HTTPField(name: name, value: header.value))
            }
            try ResponseHeadCheck.validate(fields)
            let limit = options.destination == nil ? Int64(options.maxBodySize) : options.maxDownloadSize
            if let limit, let length = try ResponseHeadCheck.contentLength(fields[values: .contentLength]),
                fields[.contentEncoding] == nil, Int64(length) > limit
            {
                throw TransportError(
                    .bodyTooLarge, "the response announces \(length) bytes, over the limit of \(limit)")
            }
            return HTTPResponse(status: .init(code: Int(response.status.code)), headerFields: fields)
        }

        /// The body: to the download's file, or into memory, up to the limit.
        private func read(_ response: HTTPClientResponse, head: HTTPResponse) async throws -> (
            ResponseBody, Int64
        ) {
            let total = TransferProgress.downloadTotal(of: head.headerFields)
            var decoding = AHCBodyDecoding(head, expansion: options.downloadExpansionLimit)
            guard let destination = options.destination else {
                var bytes: [UInt8] = []
                if head.headerFields[.contentEncoding] == nil,
                    let length = try? ResponseHeadCheck.contentLength(
                        head.headerFields[values: .contentLength]),
                    length <= options.maxBodySize
                {
                    bytes.reserveCapacity(length)
                }
                for try await buffer in response.body {
                    await options.transferControl?.waitWhilePaused()
                    watchdog?.touch()
                    let decoded = try decoding.decode(buffer, limit: Int64(options.maxBodySize), what: "body")
                    decoded.withUnsafeReadableBytes { bytes.append(contentsOf: $0) }
                    options.progress?(
                        TransferProgress(direction: .download, completed: decoding.count, total: total))
                }
                try decoding.finish()
                try deadline?.check()
                return (.bytes(bytes), decoding.count)
            }
            let file = try DownloadFile(destination, head: head)
            do {
                for try await buffer in response.body {
                    await options.transferControl?.waitWhilePaused()
                    watchdog?.touch()
                    try await file.write(
                        decoding.decode(buffer, limit: options.maxDownloadSize, what: "download"))
                    // The wait for our own disk (and for this task to run
                    // again after it) is not the peer's silence.
                    watchdog?.touch()
                    options.progress?(
                        TransferProgress(direction: .download, completed: decoding.count, total: total))
                }
                try decoding.finish()
                let identity = head.headerFields[.contentEncoding] == nil
                let hasBody =
                    request.head.method != .head && head.status.code != 204 && head.status.code != 304
                let length = try ResponseHeadCheck.contentLength(head.headerFields[values: .contentLength])
                let expected = identity && hasBody ? length.map(Int64.init) : nil
                try deadline?.check()
                return (.file(try await file.commit(expectedLength: expected)), decoding.count)
            } catch {
                file.discard()
                throw error
            }
        }
    }

    /// A failure before any response head arrived: the request may be sent
    /// again (``AHCExchange/resending(_:once:)``). Never leaves the transport.
    struct BeforeHead: Error {
        let error: TransportError
    }

    /// How many connections a transport opened, and how many of them are still open.
    final class ConnectionCount: Sendable {
        private let count = Locked((opened: 0, open: 0))
        var value: (opened: Int, open: Int) { count.withLock { $0 } }
        /// Counts a connection from its first moment to its close.
        func track(_ channel: any Channel) {
            count.withLock {
                $0.opened += 1
                $0.open += 1
            }
            channel.closeFuture.whenComplete { _ in self.count.withLock { $0.open -= 1 } }
        }
    }

    /// How many request body bytes went out, counted as the body is pulled.
    final class SentBytes: Sendable {
        private let count = Locked<Int64>(0)
        var value: Int64 {
            get { count.withLock { $0 } }
            set { count.withLock { $0 = newValue } }
        }
    }
#endif
