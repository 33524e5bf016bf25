import CCurl
@_spi(Transport) import CourierCore
import CourierWebSocket
import HTTPTypes
import Synchronization

/// The opening handshake on libcurl, on the connection's thread: the
/// transfer's easy handle set up as for any request (URL, fields, TLS, pins,
/// proxy), then `ws://` or `wss://` and `CURLOPT_CONNECT_ONLY` 2, performed
/// with `curl_easy_perform`. libcurl adds `Upgrade`, `Connection`,
/// `Sec-WebSocket-Key` and `-Version` and checks the server's
/// `Sec-WebSocket-Accept`; the subprotocols are offered and checked here.
struct CurlWebSocketHandshake {
    enum Outcome {
        /// `101`: the response, the chosen subprotocol, the socket.
        case upgraded(HTTPResponse, String?, Int32)
        /// Any other answer, and what came of its body.
        case refused(HTTPResponse, [UInt8])
    }

    /// `Sec-WebSocket-Protocol`: offered by the request, chosen by the answer.
    static let protocolField = HTTPField.Name("Sec-WebSocket-Protocol")

    let transfer: CurlTransfer
    let limits: WebSocketLimits
    let cancelled: CurlCancelFlag

    func perform() -> Result<Outcome, any Error> {
        do {
            try prepare()
        } catch {
            return .failure(error)
        }
        guard let handle = transfer.handle else {
            return .failure(TransportError(.other, "no easy handle for the WebSocket"))
        }
        let result = withExtendedLifetime(cancelled) { curl_easy_perform(handle) }
        if result == CURLE_ABORTED_BY_CALLBACK, cancelled.isSet {
            return .failure(TransportError(.cancelled, "opening the WebSocket was cancelled"))
        }
        guard let code = transfer.head.status else {
            if case .failure(let error) = transfer.outcome(result) { return .failure(error) }
            return .failure(TransportError(.emptyResponse, "no answer to the WebSocket handshake"))
        }
        let response = HTTPResponse(
            status: .init(code: code, reasonPhrase: transfer.head.reason), headerFields: transfer.head.fields)
        guard code == 101 else { return .success(.refused(response, transfer.body)) }
        guard result == CURLE_OK else {
            if case .failure(let error) = transfer.outcome(result) { return .failure(error) }
            return .failure(TransportError(.protocolError, "the WebSocket handshake failed"))
        }
        let chosen = Self.protocolField.flatMap { response.headerFields[$0] }
        if let chosen, !limits.subprotocols.contains(chosen) {
            return .failure(
                TransportError(
                    .protocolError, "the server chose the subprotocol \(chosen), which was not offered"))
        }
        var socket = curl_socket_t(-1)
        guard courier_easy_getinfo_socket(handle, CURLINFO_ACTIVESOCKET, &socket) == CURLE_OK, socket >= 0
        else {
            return .failure(TransportError(.connectionFailed, "the WebSocket's connection has no socket"))
        }
        // The handshake's deadline does not bound the connection's life.
        _ = courier_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, 0)
        return .success(.upgraded(response, chosen, Int32(socket)))
    }

    /// The request's options, then the WebSocket's own.
    private func prepare() throws(TransportError) {
        try transfer.activate()
        guard let handle = transfer.handle else { return }
        let head = transfer.request.head
        let secure = head.scheme == "https" || head.scheme == "wss"
        let url = (secure ? "wss://" : "ws://") + (head.authority ?? "") + (head.path ?? "/")
        try CurlErrorMapping.check(courier_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "ws,wss"))
        try CurlErrorMapping.check(courier_easy_setopt_string(handle, CURLOPT_URL, url))
        try CurlErrorMapping.check(courier_easy_setopt_long(handle, CURLOPT_CONNECT_ONLY, 2))
        if CurlFeatures.current.webSocketPongsOptional {
            // CURLWS_NOAUTOPONG: WebSocket answers pings itself, once.
            try CurlErrorMapping.check(courier_easy_setopt_long(handle, CURLOPT_WS_OPTIONS, 1 << 1))
        }
        // The opening task's cancellation aborts the handshake.
        try CurlErrorMapping.check(courier_easy_setopt_long(handle, CURLOPT_NOPROGRESS, 0))
        try CurlErrorMapping.check(
            courier_easy_setopt_xferinfo_function(handle, CURLOPT_XFERINFOFUNCTION, curlWebSocketProgress))
        try CurlErrorMapping.check(
            courier_easy_setopt_pointer(
                handle, CURLOPT_XFERINFODATA, Unmanaged.passUnretained(cancelled).toOpaque()))
    }
}

/// Aborts a handshake whose opening task was cancelled, or a connection aborted mid-handshake.
final class CurlCancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
}

/// libcurl's progress callback during a handshake: non-zero aborts it.
/// The flag is unretained: the handshake holds it for the whole perform.
func curlWebSocketProgress(
    _ context: UnsafeMutableRawPointer?, _ downloadTotal: curl_off_t, _ downloaded: curl_off_t,
    _ uploadTotal: curl_off_t, _ uploaded: curl_off_t
) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<CurlCancelFlag>.fromOpaque(context).takeUnretainedValue().isSet ? 1 : 0
}
