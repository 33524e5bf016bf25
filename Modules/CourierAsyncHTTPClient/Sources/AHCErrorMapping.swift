#if AsyncHTTPClient
    import AsyncHTTPClient
    import CourierCore
    import CourierProxies
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import NIOSSL

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// async-http-client's and SwiftNIO's errors as Courier's transport error codes.
    enum AHCErrorMapping {
        /// - Parameters:
        ///  - error: What async-http-client, SwiftNIO or the body reader threw.
        ///   - cancelled: Whether the exchange was cancelled (a cancellation
        ///     surfaces as many different errors from inside NIO).
        ///   - beforeHead: Whether no response head had arrived: a connection
        ///     closed then is an empty response; once the head is in, a body cut
        ///     short is a reset connection.
        /// - Returns: The transport error the pipeline sees.
        static func map(_ error: any Error, cancelled: Bool, beforeHead: Bool = false) -> TransportError {
            if let error = error as? TransportError { return error }
            if error is CancellationError || cancelled {
                return TransportError(.cancelled, "the exchange was cancelled")
            }
            let text = "\(error)"
            if let client = error as? HTTPClientError {
                if client == .remoteConnectionClosed, beforeHead {
                    return TransportError(
                        .emptyResponse, "the server closed the connection without answering")
                }
                return TransportError(code(client), "\(client.shortDescription) (\(text))")
            }
            if let parser = error as? HTTPParserError {
                if parser == .invalidEOFState {
                    return TransportError(
                        .connectionReset, "the connection closed before the body was complete")
                }
                return TransportError(.protocolError, "\(parser)")
            }
            if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
                return TransportError(.tls, text)
            }
            if let failure = error as? NIOConnectionError {
                let causes = failure.connectionErrors.map { "\($0.error)" }.joined(separator: "; ")
                return TransportError(
                    .connectionFailed, "cannot connect to \(failure.host):\(failure.port): \(causes)")
            }
            if let io = error as? IOError {
                switch io.errnoCode {
                case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: return TransportError(.connectionFailed, text)
                case ECONNRESET, EPIPE: return TransportError(.connectionReset, text)
                default: return TransportError(.other, text)
                }
            }
            if let channel = error as? ChannelError {
                switch channel {
                case .connectTimeout: return TransportError(.timedOut, text)
                case .eof, .ioOnClosedChannel, .outputClosed, .alreadyClosed:
                    return TransportError(.connectionReset, text)
                default: return TransportError(.other, text)
                }
            }
            if text.contains("NIOResolutionError") || text.contains("SocketAddressError") {
                return TransportError(.dnsFailure, text)
            }
            return TransportError(.other, "\(type(of: error)): \(text)")
        }

        private static func code(_ error: HTTPClientError) -> TransportError.Code {
            let table: [(HTTPClientError, TransportError.Code)] = [
                (.cancelled, .cancelled), (.requestStreamCancelled, .cancelled),
                (.connectTimeout, .timedOut), (.readTimeout, .timedOut), (.writeTimeout, .timedOut),
                (.deadlineExceeded, .timedOut), (.tlsHandshakeTimeout, .timedOut),
                (.getConnectionFromPoolTimeout, .timedOut),
                (.remoteConnectionClosed, .connectionReset), (.bodyLengthMismatch, .connectionReset),
                (.identityCodingIncorrectlyPresent, .protocolError),
                (.proxyAuthenticationRequired, .proxyAuthenticationFailed),
                (.invalidProxyResponse, .proxyTunnelFailed), (.httpProxyHandshakeTimeout, .proxyTunnelFailed),
                (.socksHandshakeTimeout, .socksFailed),
            ]
            return table.first { $0.0 == error }?.1 ?? .other
        }
    }
#endif
