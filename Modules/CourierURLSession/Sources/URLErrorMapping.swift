import CourierCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// URLError codes to Courier transport error codes.
enum URLErrorMapping {
    static func map(_ error: any Error) -> TransportError {
        guard let urlError = error as? URLError else { return TransportError(.other, "\(error)") }
        let text = urlError.localizedDescription
        let message = "\(text) (URLError \(urlError.code.rawValue))"
        // FoundationNetworking reports many libcurl failures as `unknown` (or
        // `unsupportedURL`) carrying libcurl's text: classify those by it.
        if urlError.code == .unknown || urlError.code == .unsupportedURL {
            // FoundationNetworking drops libcurl's code here (the underlying
            // error is NSURLErrorDomain -1 too): its text is all there is.
            let lower = text.lowercased()
            let tlsMarkers = ["ssl", "certificate", "tls", "handshake", "pinned public key"]
            if tlsMarkers.contains(where: lower.contains) { return TransportError(.tls, message) }
            let codingMarkers = ["content unencoding", "content encoding", "unrecognized content"]
            if codingMarkers.contains(where: lower.contains) {
                return TransportError(.protocolError, message)
            }
            let protocolMarkers = [
                "chunk", "response code", "weird server reply", "http/0.9", "response headers",
            ]
            if protocolMarkers.contains(where: lower.contains) {
                return TransportError(.protocolError, message)
            }
            if lower.contains("transfer closed") || lower.contains("connection reset")
                || lower.contains("recv failure")
            {
                return TransportError(.connectionReset, message)
            }
            if lower.contains("empty reply") { return TransportError(.emptyResponse, message) }
            if lower.contains("couldn't connect") || lower.contains("failed to connect") {
                return TransportError(.connectionFailed, message)
            }
        }
        let code: TransportError.Code =
            switch urlError.code {
            case .cannotFindHost, .dnsLookupFailed: .dnsFailure
            case .cannotConnectToHost, .notConnectedToInternet: .connectionFailed
            case .networkConnectionLost: .connectionReset
            case .timedOut: .timedOut
            case .cancelled: .cancelled
            case .zeroByteResource, .badServerResponse: .emptyResponse
            case .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData: .protocolError
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
                .tls
            case .dataLengthExceedsMaximum: .bodyTooLarge
            case .cannotWriteToFile, .cannotCreateFile, .cannotMoveFile: .fileSystem
            default: .other
            }
        return TransportError(code, message)
    }
}
