import CCourierSanitizer
import CCurl
import CourierContentCoding
@_spi(Transport) import CourierCore
import Foundation
import HTTPTypes

/// One request in flight: its callbacks' state, its continuation and, once
/// libcurl has a place for it, an easy handle. Created on the caller's task,
/// then touched only on the transport's thread.
///
/// A transfer waiting for a place (``CurlTransport/Configuration/maxActiveTransfers``)
/// holds no easy handle: libcurl's per-handle state is most of a request's
/// memory, and thousands may wait. The handle is taken from the pool and set
/// up when the engine starts the transfer (``activate()``).
final class CurlTransfer {
    let id: UInt64
    private var easy: CurlHandle?
    /// The easy handle; only after ``activate()`` succeeded.
    var handle: UnsafeMutableRawPointer? { easy?.pointer }
    let request: OutgoingRequest
    let options: TransportOptions
    /// Resumed exactly once, by whoever sets it to nil first (the engine
    /// thread through ``handOver()``, or `send` when the engine refuses the
    /// transfer).
    var continuation: CheckedContinuation<RawResponse, any Error>?
    /// Whether the caller's task runs on the engine thread (executor mode).
    var sentFromEngineThread = false
    /// The idle timeout's watch: told of every header line and body chunk
    /// that comes in and every body chunk that goes out.
    var watchdog: IdleWatchdog?
    /// Where a streamed body goes, chunk by chunk; nil for a body in memory
    /// or a file. The continuation is resumed with the head as soon as it is in.
    var stream: BodyStreamBuffer?
    var isStreaming: Bool { stream != nil }
    /// `scheme://authority/path`, checked by ``validate()``.
    private var url = ""
    // The upload's state (CurlTransfer+Upload.swift), on the engine thread.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    var bodyReader: RequestBodyReader?
    var pendingUpload: [UInt8] = []
    var uploadOffset = 0
    var uploaded: Int64 = 0
    /// The response head as it arrives.
    private var head = CurlResponseHead()
    private var body: [UInt8] = []
    /// The download's temporary file, when the body goes to a destination.
    private var download: PartialDownload?
    private var downloaded: Int64 = 0
    /// The download progress's total, read from the final head at the first
    /// body byte (a head is whole before its body), not again per chunk.
    private var progressTotal: Int64??
    /// How the body's content codings are undone, decided at its first byte.
    private var coding = Coding.undecided

    private enum Coding {
        case undecided
        /// The bytes pass through as they came (no coding, or an unknown one).
        case asSent
        case decoded(ContentDecoder)
    }
    var failure: TransportError?
    /// The pins the host's chain must meet (``CurlPinning``); `nil` for none.
    var expectedPins: [String]?
    /// The host the pins are for, for the error.
    var pinnedHost = ""
    /// Requests sent so far on a connection: more than one means libcurl is
    /// resending after a reused connection died.
    var sendings = 0
    /// The transfer's place among its host's connections, given back when it is freed.
    var slot: HostAdmission.Slot?

    private let pool: CurlHandlePool
    /// Where large response bodies come from.
    private let buffers: CurlBufferPool

    init(
        id: UInt64, pool: CurlHandlePool, buffers: CurlBufferPool, request: OutgoingRequest,
        options: TransportOptions
    ) {
        self.id = id
        self.pool = pool
        self.buffers = buffers
        self.request = request
        self.options = options
    }

    deinit {
        // A body never handed over (the transfer failed) serves the next one.
        buffers.give(body)
        curl_slist_free_all(headerList)
        download?.discard()
        // The transfer has left the multi handle (or never joined it): the
        // handle can serve the next request.
        if let easy { pool.give(easy) }
        slot?.release()
    }

    /// On the caller's task: refuses a request libcurl must not send (no
    /// URL parts, a header with CR, LF or NUL) and opens a download's file,
    /// so that those errors reach the caller before anything is queued.
    func validate() throws(TransportError) {
        let head = request.head
        guard let scheme = head.scheme, let authority = head.authority, let path = head.path else {
            throw TransportError(.other, "the request has no scheme, authority or path")
        }
        url = "\(scheme)://\(authority)\(path)"
        for field in head.headerFields
        where field.value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
            throw TransportError(.other, "header \(field.name) contains CR, LF or NUL")
        }
        // libcurl's read callback reads synchronously: CurlTransport gathers a stream first.
        if let body = request.body, !body.isReplayable {
            throw TransportError(.other, "a one-shot stream body reached libcurl ungathered")
        }
        if let destination = options.destination { download = try PartialDownload(destination) }
    }

    /// On the engine thread, when libcurl has a place for the transfer:
    /// takes an easy handle and sets every option in which this request
    /// differs from the handle's previous one; the shared ones were set when
    /// the handle was made.
    func activate() throws(TransportError) {
        let easy = try pool.take()
        self.easy = easy
        let handle = easy.pointer
        let head = request.head
        easy.errorBuffer[0] = 0
        try CurlErrorMapping.check(courier_easy_setopt_string(handle, CURLOPT_URL, url))
        if easy.mayMultiplex {
            let pipeWait = easy.waitsToMultiplex(scheme: head.scheme ?? "") ? 1 : 0
            try CurlErrorMapping.check(courier_easy_setopt_long(handle, CURLOPT_PIPEWAIT, pipeWait))
        }
        let timeout = options.timeout.map { max(1, Int($0.milliseconds)) } ?? 0
        try CurlErrorMapping.check(courier_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeout))
        try easy.bound(connect: options.connectTimeout)
        let limit =
            stream != nil
            ? 0 : options.destination == nil ? Int64(options.maxBodySize) : options.maxDownloadSize ?? 0
        try CurlErrorMapping.check(
            courier_easy_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit)))

        // HTTPGET clears NOBODY and UPLOAD left by an earlier request.
        try CurlErrorMapping.check(courier_easy_setopt_long(handle, CURLOPT_HTTPGET, 1))
        if head.method == .head {
            try CurlErrorMapping.check(courier_easy_setopt_long(handle, CURLOPT_NOBODY, 1))
        }
        var fields = head.headerFields
        if let body = request.body {
            try CurlErrorMapping.check(courier_easy_setopt_long(handle, CURLOPT_UPLOAD, 1))
            bodyReader = body.makeReader()
            // libcurl would otherwise wait a second for `100 Continue` on large uploads.
            fields[.expect] = nil
            headerList = curl_slist_append(headerList, "Expect:")
        }
        try CurlErrorMapping.check(
            courier_easy_setopt_off_t(
                handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(request.body?.length ?? -1)))
        let custom = head.method != .head && (head.method != .get || request.body != nil)
        try CurlErrorMapping.check(
            courier_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, custom ? head.method.rawValue : nil))
        // The codings ContentDecoder undoes, unless the caller asked for others.
        if fields[.acceptEncoding] == nil { fields[.acceptEncoding] = "gzip, deflate" }
        // One `Cookie` line, its crumbs joined (HTTPFields.forEachOnTheWire).
        fields.forEachOnTheWire { name, value in
            // "Name;" sends an empty value; "Name:" would remove the header.
            headerList = curl_slist_append(headerList, value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        try CurlErrorMapping.check(courier_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList))

        // Unretained, and safe: libcurl uses this pointer (callbacks,
        // CURLINFO_PRIVATE) only while the easy handle is in the engine's
        // multi handle, and the engine holds the transfer for exactly that
        // long — `start(_:in:)` stores it in `active` before
        // curl_multi_add_handle, and every path that drops it (completion,
        // cancellation, shutdown) calls curl_multi_remove_handle first, while
        // it still holds a reference. A handle back in the pool keeps the
        // stale pointer but is never performed until `activate()` sets it
        // anew. scripts/check-curl-lifetime (in the test command) runs every
        // path that ends a transfer under AddressSanitizer, answers the
        // cancelled ones late so that libcurl would call back into a freed
        // transfer if it still had it, and fails on any use after free; an
        // engine that skips one curl_multi_remove_handle fails it.
        let context = Unmanaged.passUnretained(self).toOpaque()
        for option in Self.contextOptions {
            try CurlErrorMapping.check(courier_easy_setopt_pointer(handle, option, context))
        }
        // A new connection's handshake asks the transfer about its pins (CurlPinning).
        if easy.checksPins {
            try CurlErrorMapping.check(courier_easy_setopt_pointer(handle, CURLOPT_SSL_CTX_DATA, context))
        }
        // Older libcurl lacks the hook; then a bodyless POST may be resent (README).
        if easy.hasPrerequestHook {
            try CurlErrorMapping.check(courier_easy_setopt_pointer(handle, CURLOPT_PREREQDATA, context))
        }
    }

    /// The options through which libcurl hands the transfer back to its callbacks.
    private static let contextOptions = [
        CURLOPT_PRIVATE, CURLOPT_WRITEDATA, CURLOPT_HEADERDATA, CURLOPT_READDATA, CURLOPT_SEEKDATA,
    ]

    // MARK: - Callbacks (on the transport's thread)

    /// A body's bytes as libcurl read them, still content-coded: decoded
    /// here (``ContentDecoder``), then delivered.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        watchdog?.touch()
        if case .undecided = coding, let code = head.status, code >= 200 {
            coding =
                ContentDecoder.make(for: head.fields[values: .contentEncoding]).map(Coding.decoded) ?? .asSent
        }
        guard case .decoded(let decoder) = coding else {
            switch deliver(bytes, mayRefuse: true) {
            case .taken: return bytes.count
            case .refused: return Int(CURL_WRITEFUNC_PAUSE)
            case .failed: return 0
            }
        }
        // Decoded bytes cannot be offered again: libcurl would hand back the
        // coded ones, already inflated. A stream takes every decoded piece,
        // and the transfer pauses once the buffer is past its mark.
        var pause = false
        do {
            let going = try decoder.decode(bytes) { piece in
                switch deliver(piece, mayRefuse: false) {
                case .taken: return true
                case .refused:
                    pause = true
                    return true
                case .failed: return false
                }
            }
            guard going else { return 0 }
        } catch {
            failure = error
            return 0
        }
        if pause, let handle { curl_easy_pause(handle, CURLPAUSE_RECV) }
        return bytes.count
    }

    /// What became of delivered bytes.
    private enum Delivery {
        case taken, refused, failed
    }

    /// Hands decoded bytes to the download's file, the stream or the body.
    /// A stream that is full refuses them when `mayRefuse` (libcurl offers
    /// them again after the pause) and otherwise takes them, asking for a
    /// pause.
    private func deliver(_ bytes: UnsafeRawBufferPointer, mayRefuse: Bool) -> Delivery {
        downloaded += Int64(bytes.count)
        if let download {
            if download.head == nil, let code = head.status {
                // What a resumable download keeps its bytes by.
                download.head = HTTPResponse(status: .init(code: code), headerFields: head.fields)
            }
            if let limit = options.maxDownloadSize, downloaded > limit {
                failure = TransportError(.bodyTooLarge, "the download exceeds \(limit) bytes")
                return .failed
            }
            do {
                try download.write(bytes)
            } catch {
                failure = error
                return .failed
            }
        } else if let stream {
            if mayRefuse {
                // Not taken: libcurl holds the bytes and offers them again once
                // the reader has caught up (the engine resumes the transfer).
                guard case .accepted = stream.offer(Array(bytes)) else {
                    downloaded -= Int64(bytes.count)
                    return .refused
                }
            } else if case .full = stream.append(Array(bytes)) {
                reportProgress()
                return .refused
            }
        } else {
            guard body.count + bytes.count <= options.maxBodySize else {
                failure = TransportError(.bodyTooLarge, "the body exceeds \(options.maxBodySize) bytes")
                return .failed
            }
            let needed = body.count + bytes.count
            if needed > body.capacity {
                // A known length sizes the buffer once; an unknown (or
                // decoded, longer) one grows it by doubling. Large buffers
                // come from the transport's pool, whose pages stay mapped.
                let length = body.isEmpty ? head.contentLength.map { min($0, options.maxBodySize) } ?? 0 : 0
                let wanted = max(needed, length, body.capacity * 2)
                if CurlBufferPool.pools(wanted) {
                    var larger = buffers.take(atLeast: wanted)
                    larger.append(contentsOf: body)
                    buffers.give(body)
                    body = larger
                } else {
                    body.reserveCapacity(wanted)
                }
            }
            body.append(contentsOf: bytes)
        }
        reportProgress()
        return .taken
    }

    private func reportProgress() {
        guard let progress = options.progress else { return }
        let total = progressTotal ?? TransferProgress.downloadTotal(of: head.fields)
        progressTotal = total
        progress(TransferProgress(direction: .download, completed: downloaded, total: total))
    }

    /// Returns false to abort when the response head grows past the limit or
    /// its framing is ambiguous (``ResponseHeadCheck``), before any body byte.
    func header(_ line: UnsafeRawBufferPointer) -> Bool {
        watchdog?.touch()
        if let problem = head.take(line) {
            failure = problem
            return false
        }
        // The blank line after a final status: a streamed response's head is complete.
        if stream != nil, line.count <= 2, line.allSatisfy({ $0 == 13 || $0 == 10 }),
            let status = head.status, status >= 200, continuation != nil
        {
            let response = RawResponse(
                head: HTTPResponse(
                    status: .init(code: status, reasonPhrase: head.reason), headerFields: head.fields),
                body: .empty, metrics: metrics())
            handOver()?.resume(returning: response)
        }
        return true
    }

    // MARK: - Completion

    /// What libcurl wrote into the error buffer, if anything.
    var errorDetail: String { easy.map { String(cString: $0.errorBuffer) } ?? "" }

    /// The response, once libcurl finished the transfer successfully.
    func response() throws(TransportError) -> RawResponse {
        guard let code = head.status else { throw TransportError(.emptyResponse, "no response head") }
        let head = HTTPResponse(
            status: .init(code: code, reasonPhrase: self.head.reason), headerFields: self.head.fields)
        var responseBody = ResponseBody.bytes(body)
        if let download {
            // Checked against Content-Length when the bytes are not decoded.
            let identity = head.headerFields[.contentEncoding] == nil
            let hasBody = request.head.method != .head && code != 204 && code != 304
            let expected = identity && hasBody ? self.head.contentLength.map(Int64.init) : nil
            responseBody = .file(try download.commit(expectedLength: expected))
        }
        return RawResponse(head: head, body: responseBody, metrics: metrics())
    }

    private func metrics() -> TransportMetrics {
        let handle = self.handle
        func micro(_ info: CURLINFO) -> Duration? {
            var value: curl_off_t = 0
            guard courier_easy_getinfo_off_t(handle, info, &value) == CURLE_OK else { return nil }
            return .microseconds(value)
        }
        func long(_ info: CURLINFO) -> Int? {
            var value = 0
            guard courier_easy_getinfo_long(handle, info, &value) == CURLE_OK else { return nil }
            return value
        }
        let version: String? =
            switch long(CURLINFO_HTTP_VERSION) {
            case Int(CURL_HTTP_VERSION_1_0): "1.0"
            case Int(CURL_HTTP_VERSION_1_1): "1.1"
            case Int(CURL_HTTP_VERSION_2_0): "2"
            case Int(CURL_HTTP_VERSION_3): "3"
            default: nil
            }
        // A reused connection had no lookup, connect or handshake of its own
        // (libcurl reports 0 for some and a cached lookup's few µs for
        // others), and plain http has no handshake: those phases are absent.
        let reused = long(CURLINFO_NUM_CONNECTS).map { $0 == 0 }
        let connected = reused != true
        let tls = connected && request.head.scheme?.lowercased() == "https"
        return TransportMetrics(
            total: micro(CURLINFO_TOTAL_TIME_T),
            dnsLookup: connected ? micro(CURLINFO_NAMELOOKUP_TIME_T) : nil,
            connect: connected ? micro(CURLINFO_CONNECT_TIME_T) : nil,
            tlsHandshake: tls ? micro(CURLINFO_APPCONNECT_TIME_T) : nil,
            timeToFirstByte: micro(CURLINFO_STARTTRANSFER_TIME_T), bytesSent: uploaded,
            bytesReceived: downloaded, connectionReused: reused, httpVersion: version,
            resends: easy?.hasPrerequestHook == true ? max(0, sendings - 1) : nil)
    }

    /// Removes a download's temporary file: every failure path calls this
    /// before the caller hears of the failure, so nothing is left behind.
    func abandonDownload() { download?.discard() }

    /// What the caller gets once libcurl finished the transfer with `result`.
    func outcome(_ result: CURLcode) -> Result<RawResponse, any Error> {
        if result == CURLE_OK {
            do {
                if case .decoded(let decoder) = coding { try decoder.finish() }
            } catch {
                abandonDownload()
                return .failure(error)
            }
            do {
                return .success(try response())
            } catch {
                return .failure(error)
            }
        }
        abandonDownload()
        if let failure { return .failure(failure) }
        return .failure(CurlErrorMapping.error(result, detail: errorDetail))
    }

    /// Ends the transfer with `error` before libcurl finished it (cancelled,
    /// shut down, or it could not start), if its caller still waits.
    func fail(_ error: any Error) {
        abandonDownload()
        handOver()?.resume(throwing: error)
        stream?.finish(throwing: error)
    }

    /// A streamed transfer ended: the body's reader sees the end or the
    /// failure; a caller still waiting for the head gets the outcome.
    func endStream(_ outcome: Result<RawResponse, any Error>) {
        switch outcome {
        case .success: stream?.finish()
        case .failure(let error): stream?.finish(throwing: error)
        }
        handOver()?.resume(with: outcome)
    }

    /// Takes the continuation (nil once taken) to resume it with what this
    /// thread made for the caller, made before this call.
    ///
    /// Tells ThreadSanitizer that those writes happen before the caller's
    /// reads (``received()``): the Swift runtime announces a continuation's
    /// resumption only when its task was already waiting, and a response
    /// resumed before its task reached the `await` was reported as a race on
    /// every field (swiftlang/swift#57803). A no-op unless sanitized.
    func handOver() -> CheckedContinuation<RawResponse, any Error>? {
        guard let continuation else { return nil }
        self.continuation = nil
        courier_tsan_release(Unmanaged.passUnretained(self).toOpaque())
        return continuation
    }

    /// The caller's half of ``handOver()``, after its continuation returned.
    func received() {
        courier_tsan_acquire(Unmanaged.passUnretained(self).toOpaque())
    }
}
