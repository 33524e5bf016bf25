import CCourierSanitizer
import CCurl
import CourierContentCoding
@_spi(Transport) import CourierCore
import Foundation
import HTTPTypes

extension CurlTransfer {
    // MARK: - Completion

    /// What libcurl wrote into the error buffer, if anything.
    var errorDetail: String { easy.map { String(cString: $0.errorBuffer) } ?? "" }

    /// The response, once libcurl finished the transfer successfully.
    func response() throws(TransportError) -> RawResponse {
        guard let code = head.status else { throw TransportError(.emptyResponse, "no response head") }
        if let refusal = proxyRefusal(status: code) { throw refusal }
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

    func metrics() -> TransportMetrics {
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
        if let proxyFailure = proxyFailure(result) { return .failure(proxyFailure) }
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
