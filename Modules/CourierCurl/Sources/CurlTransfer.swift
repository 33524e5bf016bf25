import CCurl
import CourierCore
import Foundation
import HTTPTypes

/// One request in flight: its easy handle, callbacks' state and continuation.
/// Created on the caller's task, then touched only on the transport's thread.
final class CurlTransfer {
    let id: UInt64
    let handle: UnsafeMutableRawPointer
    let request: OutgoingRequest
    let options: TransportOptions
    var continuation: CheckedContinuation<RawResponse, any Error>?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var bodyReader: RequestBodyReader?
    private var pendingUpload: [UInt8] = []
    private var uploadOffset = 0
    private var uploaded: Int64 = 0
    /// The status line and header lines of the latest response block.
    private var headerLines: [String] = []
    private var body: [UInt8] = []
    private var file: FileHandle?
    private var downloaded: Int64 = 0
    /// The fields of the latest complete response head, checked.
    private var fields = HTTPFields()
    /// Bytes of response heads received, 1xx included.
    private var headerBytes = 0
    private(set) var failure: TransportError?
    /// libcurl's error buffer: the detail behind a failed transfer.
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    private let pool: CurlHandlePool

    init(
        id: UInt64, handle: UnsafeMutableRawPointer, pool: CurlHandlePool, request: OutgoingRequest,
        options: TransportOptions
    ) {
        self.id = id
        self.handle = handle
        self.pool = pool
        self.request = request
        self.options = options
    }

    deinit {
        errorBuffer.deallocate()
        curl_slist_free_all(headerList)
        try? file?.close()
        // The transfer has left the multi handle (or never joined it): reset
        // the handle and keep it for the next request.
        pool.give(handle)
    }

    /// Sets every option this request needs on a fresh handle.
    func configure(_ settings: CurlTransport.Configuration) throws(TransportError) {
        let head = request.head
        guard let scheme = head.scheme, let authority = head.authority, let path = head.path else {
            throw TransportError(.other, "the request has no scheme, authority or path")
        }
        let url = "\(scheme)://\(authority)\(path)"
        try check(courier_easy_setopt_string(handle, CURLOPT_URL, url))
        try check(courier_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        try check(courier_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        errorBuffer.initialize(to: 0)
        try check(courier_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        try check(courier_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
        try check(courier_easy_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
        try check(courier_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
        try check(
            courier_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeoutMilliseconds))
        if let timeout = options.timeout {
            try check(
                courier_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, max(1, Self.milliseconds(timeout))))
        }
        try check(courier_easy_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, ""))
        try applyConnectionSettings(settings)
        if let limit = options.destination == nil ? Int64(options.maxBodySize) : options.maxDownloadSize {
            try check(courier_easy_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit)))
        }

        let method = head.method.rawValue
        var fields = head.headerFields
        if let body = request.body {
            try check(courier_easy_setopt_long(handle, CURLOPT_UPLOAD, 1))
            if let length = body.length {
                try check(courier_easy_setopt_off_t(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(length)))
            }
            bodyReader = body.makeReader()
            // libcurl would otherwise wait a second for `100 Continue` on large uploads.
            fields[.expect] = nil
            headerList = curl_slist_append(headerList, "Expect:")
        }
        if head.method == .head {
            try check(courier_easy_setopt_long(handle, CURLOPT_NOBODY, 1))
        } else if head.method != .get || request.body != nil {
            try check(courier_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method))
        }
        for field in fields {
            let value = field.value
            if value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
                throw TransportError(.other, "header \(field.name) contains CR, LF or NUL")
            }
            // "Name;" sends an empty value; "Name:" would remove the header.
            headerList = curl_slist_append(
                headerList, value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(value)")
        }
        try check(courier_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList))

        let context = Unmanaged.passUnretained(self).toOpaque()
        try check(courier_easy_setopt_pointer(handle, CURLOPT_PRIVATE, context))
        try check(courier_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
        try check(courier_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context))
        try check(courier_easy_setopt_pointer(handle, CURLOPT_READDATA, context))
        try check(courier_easy_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, curlWrite))
        try check(courier_easy_setopt_write_function(handle, CURLOPT_HEADERFUNCTION, curlHeader))
        try check(courier_easy_setopt_read_function(handle, CURLOPT_READFUNCTION, curlRead))
        try check(courier_easy_setopt_pointer(handle, CURLOPT_SEEKDATA, context))
        try check(courier_easy_setopt_seek_function(handle, CURLOPT_SEEKFUNCTION, curlSeek))
        // Older libcurl lacks the hook; then a bodyless POST may be resent (README).
        if courier_easy_setopt_prereq_function(handle, CURLOPT_PREREQFUNCTION, curlPrerequest) == CURLE_OK {
            try check(courier_easy_setopt_pointer(handle, CURLOPT_PREREQDATA, context))
        }
        if let destination = options.destination { file = try Self.open(destination) }
    }

    private func applyConnectionSettings(_ settings: CurlTransport.Configuration) throws(TransportError) {
        if let (rate, seconds) = settings.lowSpeedLimit {
            try check(courier_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, rate))
            try check(courier_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, seconds))
        }
        let version: Int32 =
            switch settings.httpVersion {
            case .automatic: Int32(CURL_HTTP_VERSION_2TLS)
            case .http1: Int32(CURL_HTTP_VERSION_1_1)
            case .http2PriorKnowledge: Int32(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
            }
        try check(courier_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(version)))
        if let proxy = settings.proxy { try check(courier_easy_setopt_string(handle, CURLOPT_PROXY, proxy)) }
        if let bundle = settings.tls.caBundlePath {
            try check(courier_easy_setopt_string(handle, CURLOPT_CAINFO, bundle))
        }
        if let client = settings.tls.clientCertificate {
            try check(courier_easy_setopt_string(handle, CURLOPT_SSLCERT, client.certificatePath))
            try check(courier_easy_setopt_string(handle, CURLOPT_SSLKEY, client.keyPath))
        }
        if !settings.tls.pinnedPublicKeys.isEmpty {
            let pins = settings.tls.pinnedPublicKeys.joined(separator: ";")
            try check(courier_easy_setopt_string(handle, CURLOPT_PINNEDPUBLICKEY, pins))
        }
    }

    // MARK: - Callbacks (on the transport's thread)

    func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        downloaded += Int64(bytes.count)
        if let file {
            if let limit = options.maxDownloadSize, downloaded > limit {
                failure = TransportError(.bodyTooLarge, "the download exceeds \(limit) bytes")
                return 0
            }
            do {
                try file.write(contentsOf: bytes)
            } catch {
                failure = TransportError(.fileSystem, "writing the download failed: \(error)")
                return 0
            }
        } else {
            guard body.count + bytes.count <= options.maxBodySize else {
                failure = TransportError(.bodyTooLarge, "the body exceeds \(options.maxBodySize) bytes")
                return 0
            }
            body.append(contentsOf: bytes)
        }
        options.progress?(TransferProgress(direction: .download, completed: downloaded, total: nil))
        return bytes.count
    }

    /// Returns false to abort when the response head grows past the limit or
    /// its framing is ambiguous (``ResponseHeadCheck``), before any body byte.
    func header(_ line: String) -> Bool {
        headerBytes += line.utf8.count
        guard headerBytes <= ResponseHeadCheck.maxHeadBytes else {
            failure = TransportError(
                .protocolError, "the response head exceeds \(ResponseHeadCheck.maxHeadBytes) bytes")
            return false
        }
        if line.hasPrefix("HTTP/") { headerLines = [] }
        var trimmed = Substring(line)
        while let last = trimmed.last, last == "\r\n" || last == "\n" || last == "\r" { trimmed.removeLast() }
        guard trimmed.isEmpty else {
            headerLines.append(String(trimmed))
            return true
        }
        // The blank line: the head is complete.
        fields = Self.fields(headerLines.dropFirst())
        do {
            try ResponseHeadCheck.validate(fields)
        } catch {
            failure = error
            return false
        }
        return true
    }

    private static func fields(_ lines: ArraySlice<String>) -> HTTPFields {
        var fields = HTTPFields()
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon]))
            else {
                continue
            }
            fields.append(
                HTTPField(
                    name: name,
                    value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
        return fields
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if uploadOffset >= pendingUpload.count {
            do {
                guard let next = try bodyReader?.next() else { return 0 }
                pendingUpload = next
                uploadOffset = 0
            } catch {
                failure = TransportError(.other, "reading the request body failed: \(error)")
                return Int(CURL_READFUNC_ABORT)
            }
        }
        let count = min(buffer.count, pendingUpload.count - uploadOffset)
        pendingUpload.withUnsafeBytes { source in
            guard let start = source.baseAddress, let target = buffer.baseAddress else { return }
            target.copyMemory(from: start + uploadOffset, byteCount: count)
        }
        uploadOffset += count
        uploaded += Int64(count)
        options.progress?(
            TransferProgress(direction: .upload, completed: uploaded, total: request.body?.length))
        return count
    }

    /// Whether libcurl may send this request again by itself when a reused
    /// connection turns out dead (RFC 9110 §9.2.2: idempotent methods only).
    private var resendable: Bool {
        [.get, .head, .put, .delete, .options, .trace].contains(request.head.method)
    }

    /// Requests sent so far on a connection: more than one means libcurl is
    /// resending after a reused connection died.
    private var sendings = 0

    /// Returns false to stop libcurl resending a non-idempotent request.
    func prerequest() -> Bool {
        sendings += 1
        guard sendings > 1, !resendable else { return true }
        failure = Self.notResent(request.head.method)
        return false
    }

    /// Rewinds the body for libcurl's resend of an idempotent request;
    /// refuses otherwise, which fails the transfer instead of repeating it.
    func rewind(to offset: Int64) -> Bool {
        guard offset == 0, resendable, let reader = request.body?.makeReader() else {
            if !resendable { failure = Self.notResent(request.head.method) }
            return false
        }
        bodyReader = reader
        pendingUpload = []
        uploadOffset = 0
        uploaded = 0
        return true
    }

    private static func notResent(_ method: HTTPRequest.Method) -> TransportError {
        TransportError(
            .connectionReset,
            "the reused connection closed before answering; the \(method) was not sent again (not idempotent)"
        )
    }

    // MARK: - Completion

    /// What libcurl wrote into the error buffer, if anything.
    var errorDetail: String { String(cString: errorBuffer) }

    /// The response, once libcurl finished the transfer successfully.
    func response() throws(TransportError) -> RawResponse {
        guard let statusLine = headerLines.first else {
            throw TransportError(.emptyResponse, "no response head")
        }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let code = Int(parts[1]), (100...999).contains(code) else {
            throw TransportError(.protocolError, "invalid status line: \(statusLine)")
        }
        let reason = parts.count > 2 ? String(parts[2]) : ""
        let head = HTTPResponse(status: .init(code: code, reasonPhrase: reason), headerFields: fields)
        var responseBody = ResponseBody.bytes(body)
        if let file, let destination = options.destination {
            try? file.close()
            self.file = nil
            responseBody = .file(destination.url)
        }
        return RawResponse(head: head, body: responseBody, metrics: metrics())
    }

    private func metrics() -> TransportMetrics {
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
        return TransportMetrics(
            total: micro(CURLINFO_TOTAL_TIME_T), dnsLookup: micro(CURLINFO_NAMELOOKUP_TIME_T),
            connect: micro(CURLINFO_CONNECT_TIME_T), tlsHandshake: micro(CURLINFO_APPCONNECT_TIME_T),
            timeToFirstByte: micro(CURLINFO_STARTTRANSFER_TIME_T), bytesSent: uploaded,
            bytesReceived: downloaded,
            connectionReused: long(CURLINFO_NUM_CONNECTS).map { $0 == 0 }, httpVersion: version)
    }

    private func check(_ result: CURLcode) throws(TransportError) {
        guard result == CURLE_OK else { throw CurlErrorMapping.error(result, detail: "setting an option") }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    private static func open(_ destination: DownloadDestination) throws(TransportError) -> FileHandle {
        try destination.prepare()
        let path = destination.url.path
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw TransportError(.fileSystem, "cannot create \(path)") }
        return handle
    }
}
