import CCourierSanitizer
import CCurl
import CourierContentCoding
@_spi(Transport) import CourierCore
import CourierProxies
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
    var easy: CurlHandle?
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
    var url = ""
    // The upload's state (CurlTransfer+Upload.swift), on the engine thread.
    var headerList: UnsafeMutablePointer<curl_slist>?
    var bodyReader: RequestBodyReader?
    var pendingUpload: [UInt8] = []
    var uploadOffset = 0
    var uploaded: Int64 = 0
    /// The response head as it arrives.
    var head = CurlResponseHead()
    var body: [UInt8] = []
    /// The download's temporary file, when the body goes to a destination.
    var download: PartialDownload?
    var downloaded: Int64 = 0
    /// The download progress's total, read from the final head at the first
    /// body byte (a head is whole before its body), not again per chunk.
    var progressTotal: Int64??
    /// How the body's content codings are undone, decided at its first byte.
    var coding = Coding.undecided

    enum Coding {
        case undecided
        /// The bytes pass through as they came (no coding, or an unknown one).
        case asSent
        case decoded(ContentDecoder)
    }
    var failure: TransportError?
    /// The proxy the request goes through; `nil` for direct.
    var proxy: Proxy?
    /// The pins the host's chain must meet (``CurlPinning``); `nil` for none.
    var expectedPins: [String]?
    /// The host the pins are for, for the error.
    var pinnedHost = ""
    /// Requests sent so far on a connection: more than one means libcurl is
    /// resending after a reused connection died.
    var sendings = 0
    /// The transfer's place among its host's connections, given back when it is freed.
    var slot: HostAdmission.Slot?
    /// Whether the app paused the transfer (``CourierCore/TransferControl``),
    /// set from any thread and applied by the engine; nil when nobody can.
    var pauseRequest: CurlPauseRequest?

    let pool: CurlHandlePool
    /// Where large response bodies come from.
    let buffers: CurlBufferPool

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
        try easy.route(through: proxy)
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
        if fields[.acceptEncoding] == nil { fields[.acceptEncoding] = ContentDecoder.acceptEncoding }
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
}
