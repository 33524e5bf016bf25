import CCurl
@_spi(Transport) import CourierCore
import HTTPTypes

/// The request body's side of a transfer (on the transport's thread):
/// libcurl's read, rewind and pre-request callbacks.
extension CurlTransfer {
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
        watchdog?.touch()
        options.progress?(
            TransferProgress(direction: .upload, completed: uploaded, total: request.body?.length))
        return count
    }

    /// Whether libcurl may send this request again by itself when a reused
    /// connection turns out dead (RFC 9110 §9.2.2: idempotent methods only).
    private var resendable: Bool {
        [.get, .head, .put, .delete, .options, .trace].contains(request.head.method)
    }

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
}
