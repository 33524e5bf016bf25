public import CourierCore
public import HTTPTypes
public import OpenAPIRuntime

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A swift-openapi-runtime `ClientTransport` that sends every operation of a
/// generated client through a Courier ``/CourierCore/APIClient``: its
/// transport (CurlTransport, URLSessionTransport, AsyncHTTPClientTransport or
/// a test double), its per-call and per-attempt interceptors, plugins
/// (access token, logging, metrics, tracing), retry policy, redirect policy,
/// cookie jar and cache.
///
/// ```swift
/// let courier = APIClient(
///     transport: CurlTransport.shared, plugins: [AccessTokenPlugin { _, _ in token }],
///     retryPolicy: .standard)
/// let shop = Client(serverURL: try Servers.Server1.url(), transport: CourierClientTransport(client: courier))
/// let profile = try await shop.getProfile().ok.body.json
/// ```
///
/// Every response goes back to the generated client, whose documented cases
/// (`.unauthorized`, `.undocumented`) are how an OpenAPI user handles a 4xx
/// or 5xx: a status the client's ``/CourierCore/Validation`` refuses is still
/// retried by the retry policy first (a 503 with `Retry-After`, say), and
/// the last answer is returned, not thrown. Transport failures (a reset, a
/// timeout once retries are spent) are thrown as ``/CourierCore/CourierError``,
/// which the generated client wraps in its `ClientError`.
///
/// Logs and metrics name each call by its operation ID (`GET getOrder`),
/// never by a path with ids in it.
public struct CourierClientTransport: ClientTransport {
    /// The Courier client every operation goes through.
    public let client: APIClient
    /// Request bodies up to this size (with a known length) are read into
    /// memory so that a retry or a 307 can send them again; larger or
    /// unknown-length bodies are streamed once: 4 MiB.
    public var replayableBodyLimit: Int
    private let customize: @Sendable (_ operationID: String, Endpoint<RawResponse>) -> Endpoint<RawResponse>

    /// Creates the transport.
    ///
    /// - Parameters:
    ///   - client: The Courier client to send through.
    ///   - replayableBodyLimit: See ``replayableBodyLimit``.
    ///   - customize: Adjusts each operation's endpoint before it is sent —
    ///     `withoutAuthentication()` for a login, a retry policy or a cache
    ///     policy of its own — by operation ID.
    public init(
        client: APIClient, replayableBodyLimit: Int = 4 << 20,
        customize:
            @escaping @Sendable (_ operationID: String, Endpoint<RawResponse>) -> Endpoint<RawResponse> = {
                $1
            }
    ) {
        self.client = client
        self.replayableBodyLimit = replayableBodyLimit
        self.customize = customize
    }

    /// Sends one operation; see the type's description.
    public func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let endpoint = customize(
            operationID, try await endpoint(request, body: body, baseURL: baseURL, operationID))
        let response: RawResponse
        do {
            response = try await client.send(endpoint)
        } catch {
            guard let refused = Self.refusedResponse(error) else { throw error }
            response = refused
        }
        return (response.head, Self.body(of: response, method: request.method))
    }

    /// The answer a status refusal carries — the call's own, or the one that
    /// stopped its retries (exhausted, a stream that cannot be sent again, the
    /// deadline) — for the generated client to handle as a documented case.
    private static func refusedResponse(_ error: CourierError) -> RawResponse? {
        var current: CourierError? = error
        while let failure = current {
            if failure.code == .status, let response = failure.response { return response }
            current = failure.underlying as? CourierError
        }
        return nil
    }

    /// The operation as a raw Courier endpoint on a node at `baseURL`.
    private func endpoint(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, _ operationID: String
    ) async throws -> Endpoint<RawResponse> {
        let target = request.path ?? "/"
        let questionMark = target.firstIndex(of: "?")
        let path = target[..<(questionMark ?? target.endIndex)]
        let node = Node(operationID, baseURL: baseURL.absoluteString)
        let route = Route(request.method, RoutePath(escaped: String(path), template: operationID))
        let content = try await Self.content(
            body, contentType: request.headerFields[.contentType], limit: replayableBodyLimit)
        var endpoint = Endpoint<RawResponse>(route, on: node, content: content, headers: request.headerFields)
        if let questionMark {
            let query = target[target.index(after: questionMark)...]
            if !query.isEmpty { endpoint = endpoint.encodedQuery(String(query)) }
        }
        return endpoint
    }

    /// A body with a known length up to `limit` is read into memory (sent
    /// again on a retry); any other is streamed once.
    private static func content(_ body: HTTPBody?, contentType: String?, limit: Int) async throws -> Content {
        guard let body else { return .none }
        let type = contentType ?? "application/octet-stream"
        if case .known(let length) = body.length, length <= Int64(limit) {
            return .raw(Array(try await ArraySlice(collecting: body, upTo: limit)), contentType: type)
        }
        let length: Int64? = if case .known(let length) = body.length { length } else { nil }
        return .body(RequestBody(length: length, chunks: body.map { Array($0) }), contentType: type)
    }

    /// The response body for the generated client: none for a HEAD, a 204 or a 304.
    private static func body(of response: RawResponse, method: HTTPRequest.Method) -> HTTPBody? {
        if method == .head || response.statusCode == 204 || response.statusCode == 304 { return nil }
        switch response.body {
        case .bytes(let bytes): return HTTPBody(bytes)
        case .file(let url): return (try? Data(contentsOf: url)).map { HTTPBody(Array($0)) }
        }
    }
}
