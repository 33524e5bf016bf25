import CourierContentCoding
public import CourierCore
import HTTPTypes

/// Compresses request bodies with `gzip` or `deflate` and says so in
/// `Content-Encoding` (RFC 9110 §8.4): Alamofire's
/// `DeflateRequestCompressor`, for an API that accepts compressed uploads —
/// large JSON batches, logs, telemetry. Opt in per endpoint
/// (`Endpoint.compressingRequestBody(_:minimumSize:)`) or for
/// every call of a client (`callInterceptors`); only servers known to decode
/// request bodies should be sent them, since HTTP gives a client no way to
/// ask first.
///
/// The body is compressed once per call, before any retry and before the
/// per-attempt interceptors (a signature over the body covers the bytes
/// sent). Left as they are: bodies smaller than `minimumSize`, where the
/// coding's own bytes outweigh the saving; bodies that already carry a
/// `Content-Encoding`; and one-shot streams, which cannot be read whole
/// without losing them. It adds no credential, so cached and coalesced
/// calls are unaffected.
public struct RequestCompression: Interceptor {
    /// The coding applied.
    public enum Coding: String, Sendable {
        /// `gzip` (RFC 1952).
        case gzip
        /// `deflate`: the zlib format (RFC 1950), as RFC 9110 defines it.
        case deflate
    }

    /// The coding applied.
    public let coding: Coding
    /// Bodies shorter than this many bytes are sent as they are.
    public let minimumSize: Int

    /// Creates a compressor.
    /// - Parameters:
    ///   - coding: `gzip` (the default) or `deflate`.
    ///   - minimumSize: The smallest body worth compressing, in bytes.
    public init(_ coding: Coding = .gzip, minimumSize: Int = 1024) {
        self.coding = coding
        self.minimumSize = max(0, minimumSize)
    }

    /// Sends the request with its body compressed, when it qualifies.
    public func intercept(_ request: OutgoingRequest, context: CallContext, next: InterceptorNext)
        async throws -> RawResponse
    {
        guard let body = request.body, body.isReplayable, request.head.headerFields[.contentEncoding] == nil,
            (body.length ?? Int64(minimumSize)) >= Int64(minimumSize)
        else { return try await next(request) }
        let bytes = try await body.collect()
        guard bytes.count >= minimumSize else { return try await next(request) }
        let encoded = try ContentEncoder.encode(bytes, as: coding == .gzip ? .gzip : .deflate)
        var compressed = request
        compressed.body = RequestBody(bytes: encoded)
        compressed.head.headerFields[.contentEncoding] = coding.rawValue
        return try await next(compressed)
    }

    /// Adds no credential: `CredentialIdentity.none`.
    public func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity { .none }
}

extension Endpoint {
    /// A copy whose request body is compressed (``RequestCompression``)
    /// before the endpoint's other interceptors and every per-attempt one see it.
    ///
    /// ```swift
    /// let upload = Endpoint<Receipt>(.post("events"), on: .api, content: .json(batch))
    ///     .compressingRequestBody(.gzip)
    /// ```
    /// - Parameters:
    ///   - coding: `gzip` (the default) or `deflate`.
    ///   - minimumSize: The smallest body worth compressing, in bytes.
    /// - Returns: A copy of the endpoint with ``RequestCompression`` first among its call interceptors.
    public func compressingRequestBody(
        _ coding: RequestCompression.Coding = .gzip, minimumSize: Int = 1024
    ) -> Endpoint {
        var copy = self
        copy.spec.callInterceptors.insert(RequestCompression(coding, minimumSize: minimumSize), at: 0)
        return copy
    }
}
