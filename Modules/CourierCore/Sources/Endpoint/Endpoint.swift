public import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One API, described as a value: where it is, what it sends, and the model it
/// returns.
///
/// ```swift
/// struct User: Decodable, Sendable { let id: Int; let name: String }
///
/// extension Endpoint where Response == User {
///     static func user(id: Int) -> Self { Endpoint(.get("users/\(id)"), on: .api) }
/// }
///
/// let user = try await client.send(.user(id: 7))
/// ```
///
/// The response type picks how the body is turned into the model: a
/// `Decodable` model is decoded (from the envelope's `data` when the node or
/// endpoint has an envelope), ``RawResponse`` gives the response as it came,
/// CourierTransfers' `DownloadedFile` the file a download wrote, and a
/// closure anything else.
///
/// Every ``EndpointSpec`` field reads and writes directly on the endpoint
/// (`endpoint.timeout = .seconds(5)`), and copy-with helpers
/// (``adding(query:)``, ``adding(parameters:)``, ``adding(headers:)``,
/// ``replacing(content:)``) return changed copies.
@dynamicMemberLookup
public struct Endpoint<Response: Sendable>: Sendable {
    /// What to send and how the pipeline treats it.
    public var spec: EndpointSpec
    /// Turns the validated response into the model.
    package var serializer: ResponseSerializer<Response>
    /// Handlers that see the typed result and may replace it or run the call again.
    public var responseHandlers: [ResponseHandler<Response>] = []

    /// Creates an endpoint with an explicit way to produce the model.
    public init(spec: EndpointSpec, serializer: ResponseSerializer<Response>) {
        self.spec = spec
        self.serializer = serializer
    }

    /// Creates an endpoint whose model is produced by a closure from the raw response.
    public init(
        _ route: Route, on node: Node, query: Parameters = .empty, content: Content = .none,
        headers: HTTPFields = [:], map: @escaping @Sendable (RawResponse) throws -> Response
    ) {
        self.init(
            spec: EndpointSpec(route: route, node: node, query: query, content: content, headers: headers),
            serializer: .map(map))
    }

    /// Reads and writes the spec's fields directly.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<EndpointSpec, Value>) -> Value {
        get { spec[keyPath: keyPath] }
        set { spec[keyPath: keyPath] = newValue }
    }
}

extension Endpoint where Response: Decodable {
    /// Creates an endpoint that decodes a `Decodable` model.
    public init(
        _ route: Route, on node: Node, query: Parameters = .empty, content: Content = .none,
        headers: HTTPFields = [:]
    ) {
        self.init(
            spec: EndpointSpec(route: route, node: node, query: query, content: content, headers: headers),
            serializer: .decodable())
    }
}

extension Endpoint where Response == RawResponse {
    /// Creates an endpoint that returns the raw response.
    public init(
        _ route: Route, on node: Node, query: Parameters = .empty, content: Content = .none,
        headers: HTTPFields = [:]
    ) {
        self.init(
            spec: EndpointSpec(route: route, node: node, query: query, content: content, headers: headers),
            serializer: .raw)
    }
}

extension Endpoint {
    /// A copy with query parameters added (they win on equal keys).
    public func adding(query parameters: Parameters) -> Endpoint {
        var copy = self
        copy.spec.query = spec.query.merging(parameters)
        return copy
    }

    /// A copy with parameters added to the body's parameters when the body is
    /// a form or JSON parameters, otherwise to the query.
    public func adding(parameters: Parameters) -> Endpoint {
        var copy = self
        if let existing = spec.content.parameters {
            copy.spec.content.parameters = existing.merging(parameters)
        } else {
            copy.spec.query = spec.query.merging(parameters)
        }
        return copy
    }

    /// A copy with header fields set (replacing fields of the same name).
    public func adding(headers: HTTPFields) -> Endpoint {
        var copy = self
        copy.spec.headers.setAll(headers)
        return copy
    }

    /// A copy with a different body.
    public func replacing(content: Content) -> Endpoint {
        var copy = self
        copy.spec.content = content
        return copy
    }

    /// A copy with a retry policy.
    public func retrying(_ policy: RetryPolicy) -> Endpoint {
        var copy = self
        copy.spec.retryPolicy = policy
        return copy
    }

    /// A copy whose calls carry `tags` besides the endpoint's own, so that
    /// they can be cancelled together whatever group they are in
    /// (``APIClient/cancelAll(tagged:)``, a concurrency group's `cancelAll(tagged:)`):
    /// every call of a screen that is closing, say.
    ///
    /// ```swift
    /// let detail = Endpoint<Product>(.get("products/7"), on: .api).tagged("product-screen")
    /// client.cancelAll(tagged: "product-screen")
    /// ```
    public func tagged(_ tags: String...) -> Endpoint {
        var copy = self
        copy.spec.tags.formUnion(tags)
        return copy
    }

    /// A copy whose calls an `Authenticator` leaves alone: not signed, not
    /// refreshed, never waiting for a refresh (a login endpoint, a public one).
    public func withoutAuthentication() -> Endpoint {
        var copy = self
        copy.spec.authenticates = false
        return copy
    }

    /// A copy with a response handler appended; see ``ResponseHandler`` for
    /// the order handlers run in and what a replay counts as.
    /// - Parameters:
    ///   - name: A name for errors and logs; by default the place the closure was written.
    ///   - fileID: Where the closure was written, for the default name; leave it out.
    ///   - line: The line the closure was written on; leave it out.
    ///   - handler: Decides what happens to the result.
    /// - Returns: A copy of the endpoint with the handler last.
    public func onResponse(
        name: String? = nil, fileID: StaticString = #fileID, line: UInt = #line,
        _ handler:
            @escaping @Sendable (Result<Response, CourierError>, ResponseContext) async throws ->
            ResponseAction<
                Response
            >
    ) -> Endpoint {
        var copy = self
        copy.responseHandlers.append(ResponseHandler(name: name, fileID: fileID, line: line, handler))
        return copy
    }

    /// A copy that sends `query`, already encoded, exactly as given (after
    /// the endpoint's own query parameters): for a pre-signed URL, whose
    /// signature covers the query byte for byte.
    public func encodedQuery(_ query: String) -> Endpoint {
        var copy = self
        copy.spec.encodedQuery = query
        return copy
    }

    /// A copy with plugins added after the endpoint's own (which run after the client's).
    public func adding(plugins: [any Plugin]) -> Endpoint {
        var copy = self
        copy.spec.plugins += plugins
        return copy
    }
}
