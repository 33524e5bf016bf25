@_spi(Transport) package import CourierCore
package import CourierWebSocket
import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// WebSocket connections on `URLSessionWebSocketTask`: Foundation does the
/// handshake's fields, checks `Sec-WebSocket-Accept`, masks, frames, joins
/// fragments and answers pings; Courier does the rest
/// (``/CourierWebSocket/WebSocket``). The handshake goes through the
/// transport's session, so a refusal (a 401, a redirect) comes back as a
/// response for the client to act on, as a call's does.
///
/// What URLSession does not offer, Courier cannot add: the server's pings
/// never reach Courier (Foundation answers them), a ping's payload is not
/// sent (Foundation's own pings carry none; the pong is matched by order),
/// a message's frame count is not known, and an application close code
/// (3000–4999) is sent as 1000 where Foundation's `CloseCode` has no case for
/// it (Linux). Swift's Foundation on Linux is built without WebSocket tasks
/// in the toolchains to date (see ``webSocketUnavailability``).
extension URLSessionTransport: WebSocketTransport {
    /// Why this Foundation cannot open WebSocket tasks, or `nil`.
    package var webSocketUnavailability: String? {
        FoundationWebSockets.supported
            ? nil
            : "URLSessionTransport cannot open WebSocket connections: this toolchain's FoundationNetworking "
                + "was built without WebSocket tasks (whatever the loaded libcurl); use CurlTransport with "
                + "libcurl 8.11 or later, or AsyncHTTPClientTransport"
    }

    package func openWebSocket(_ request: OutgoingRequest, options: TransportOptions, limits: WebSocketLimits)
        async throws -> WebSocketOpening
    {
        try options.checkCancellation()
        if let reason = webSocketUnavailability { throw TransportError(.unsupported, reason) }
        var webSocketRequest = request
        if !limits.subprotocols.isEmpty {
            webSocketRequest.head.headerFields[.secWebSocketProtocol] = limits.subprotocols.joined(
                separator: ", ")
        }
        var urlRequest = try Self.urlRequest(webSocketRequest, options: options)
        // The opening is bounded by the client; the connection lives as long as the app wants.
        urlRequest.timeoutInterval = 7 * 86_400
        let task = session.webSocketTask(with: urlRequest)
        task.maximumMessageSize = limits.maxMessageSize
        let channel = URLSessionWebSocketChannel(
            task: task, limits: limits, cancel: delegate.cancelInBackground)
        delegate.register(channel, for: task.taskIdentifier)
        return try await withTaskCancellationHandler {
            try await channel.open()
        } onCancel: {
            channel.abort()
        }
    }
}

/// Whether Foundation can open WebSocket tasks here.
enum FoundationWebSockets {
    /// On Apple platforms, always. On Linux, FoundationNetworking's own
    /// answer: it is compiled with or without WebSocket tasks (Swift 6.3's
    /// Linux toolchains without), and a task it cannot run fails with
    /// `unsupportedURL` only once started. Asked once, through the C
    /// function Foundation itself asks (`CFURLSessionWebSocketsSupported`,
    /// exported by libFoundationNetworking); where a Foundation lacks it,
    /// the task is tried and its failure reported.
    static let supported: Bool = {
        #if canImport(FoundationNetworking)
            guard let symbol = dlsym(dlopen(nil, RTLD_LAZY), "CFURLSessionWebSocketsSupported") else {
                return true
            }
            return unsafeBitCast(symbol, to: (@convention(c) () -> Bool).self)()
        #else
            return true
        #endif
    }()
}
