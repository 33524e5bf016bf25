import CCurl
@_spi(Transport) package import CourierCore
@_spi(Transport) import CourierProxies
package import CourierWebSocket
import HTTPTypes

/// WebSocket connections on libcurl's own implementation (`CURLOPT_CONNECT_ONLY`
/// set to 2, then `curl_ws_recv` and `curl_ws_send`): libcurl does the
/// handshake's fields, checks `Sec-WebSocket-Accept`, masks, frames and
/// unframes; Courier joins fragments within the limits and does the rest
/// (``/CourierWebSocket/WebSocket``). The handshake goes out with the
/// transport's TLS settings, pins, proxy and host overrides, as a request does.
///
/// Each connection has a thread of its own (``CurlWebSocketConnection``):
/// libcurl's WebSocket calls run on an easy handle outside the engine's multi
/// handle, and a thread that waits on one socket keeps them off the Swift
/// concurrency pool. That costs a thread per open connection: for thousands
/// of them, `AsyncHTTPClientTransport` shares its event loops.
extension CurlTransport: WebSocketTransport {
    /// Why this process's libcurl cannot open WebSocket connections, or `nil`.
    package var webSocketUnavailability: String? {
        let features = CurlFeatures.current
        guard features.webSockets else {
            return "CurlTransport cannot open WebSocket connections: the loaded libcurl \(features.version) "
                + "was built without WebSockets (on by default from 8.11); use AsyncHTTPClientTransport, "
                + "or a newer libcurl"
        }
        return nil
    }

    package func openWebSocket(_ request: OutgoingRequest, options: TransportOptions, limits: WebSocketLimits)
        async throws -> WebSocketOpening
    {
        try options.checkCancellation()
        if let reason = webSocketUnavailability { throw TransportError(.unsupported, reason) }
        var request = request
        if !limits.subprotocols.isEmpty, let field = CurlWebSocketHandshake.protocolField {
            request.head.headerFields[field] = limits.subprotocols.joined(separator: ", ")
        }
        let transfer = CurlTransfer(
            id: 0, pool: CurlHandlePool(capacity: 0, configuration: configuration, socketOpener: nil),
            buffers: CurlBufferPool(capacityBytes: 0), request: request, options: options)
        transfer.proxy = try Self.proxySupport.proxy(
            for: configuration.proxy, scheme: request.head.scheme ?? "",
            authority: request.head.authority ?? "")
        (transfer.pinnedHost, transfer.expectedPins) = try CurlPinning.expectation(
            for: request.head, configuration.tls)
        try transfer.validate()
        let connection = CurlWebSocketConnection(limits: limits)
        let handed = UncheckedWebSocketTransfer(transfer: transfer)
        return try await withTaskCancellationHandler {
            try await connection.open(handed)
        } onCancel: {
            connection.cancelOpening()
        }
    }
}
