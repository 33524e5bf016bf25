import CCurl
import CourierCore

/// Maps every libcurl result to a Courier transport error code.
enum CurlErrorMapping {
    /// Throws when setting an option failed.
    static func check(_ result: CURLcode) throws(TransportError) {
        guard result == CURLE_OK else { throw error(result, detail: "setting an option") }
    }

    static func code(for result: CURLcode) -> TransportError.Code {
        switch result {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: .dnsFailure
        case CURLE_COULDNT_CONNECT: .connectionFailed
        case CURLE_OPERATION_TIMEDOUT: .timedOut
        case CURLE_GOT_NOTHING: .emptyResponse
        // SEND_FAIL_REWIND: a reused connection died and the body could not be
        // replayed, which Courier refuses for non-idempotent methods.
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_SEND_FAIL_REWIND: .connectionReset
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_CRL_BADFILE,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_USE_SSL_FAILED:
            .tls
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_HTTP2, CURLE_HTTP2_STREAM,
            CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_HTTP3, CURLE_RANGE_ERROR:
            .protocolError
        case CURLE_FILESIZE_EXCEEDED: .bodyTooLarge
        case CURLE_WRITE_ERROR: .fileSystem
        case CURLE_ABORTED_BY_CALLBACK: .cancelled
        default: .other
        }
    }

    static func error(_ result: CURLcode, detail: String) -> TransportError {
        let text = String(cString: curl_easy_strerror(result))
        var code = code(for: result)
        // libcurl reports bad chunked framing as a receive error; it is the
        // server breaking HTTP, not the connection dropping.
        if result == CURLE_RECV_ERROR, detail.lowercased().contains("chunk") { code = .protocolError }
        // libcurl's error buffer often ends with the same text as strerror.
        var message = detail.isEmpty ? text : detail.contains(text) ? detail : "\(text): \(detail)"
        // Which of the three timeouts ended it, in the words every transport uses.
        if result == CURLE_OPERATION_TIMEDOUT {
            if detail.hasPrefix("Operation too slow") {
                message = "slower than the transport's low-speed limit: \(detail)"
            } else if detail.hasPrefix("Connection timed out") || detail.hasPrefix("Resolving timed out") {
                message = "no connection in time (the connect timeout): \(detail)"
            }
        }
        return TransportError(code, message)
    }
}
