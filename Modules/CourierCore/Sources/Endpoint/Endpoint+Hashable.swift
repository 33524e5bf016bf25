import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Endpoints compare and hash by the request they send, so that an app can
/// key a dictionary by endpoint or de-duplicate work (ACINetworking compares
/// its requests by node and route; Moya's `Endpoint` is `Hashable`).
///
/// What counts: the node, the route (method, template and the values in
/// it), the query and an encoded query, the headers, the parameter
/// encoding, whether the call authenticates, and the body. What processes
/// the call is left out — interceptors, plugins, response handlers, the
/// decoder, validation, retry policy, timeouts, tags, coalescing — so an
/// endpoint with a logging plugin added equals the one without.
///
/// A body compares by what it is: parameters (form, JSON) by value, raw
/// bytes by bytes and content type, a file by its URL and content type, a
/// `RequestBody` of parts by its parts, and JSON from an `Encodable` by its
/// encoded bytes (encoded when compared or hashed). A body that only exists
/// when it is sent — a one-shot stream, a multipart form
/// (CourierMultipart) — compares by the value it was made as: a copy of the
/// endpoint equals it, another endpoint made the same way does not.
extension Endpoint: Hashable {
    /// Whether both send the same request (see the extension's rule).
    public static func == (lhs: Endpoint, rhs: Endpoint) -> Bool {
        RequestIdentity(lhs.spec) == RequestIdentity(rhs.spec)
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(RequestIdentity(spec))
    }
}

/// The parts of an ``EndpointSpec`` that make the request it sends.
private struct RequestIdentity: Hashable {
    let node: Node
    let route: Route
    let query: Parameters
    let encodedQuery: String?
    let headers: HTTPFields
    let parameterEncoding: ParameterEncoding?
    let authenticates: Bool
    let content: ContentIdentity

    init(_ spec: EndpointSpec) {
        node = spec.node
        route = spec.route
        query = spec.query
        encodedQuery = spec.encodedQuery
        headers = spec.headers
        parameterEncoding = spec.parameterEncoding
        authenticates = spec.authenticates
        content = ContentIdentity(spec.content)
    }
}

/// A body, as far as it can be compared (``Endpoint``'s rule).
private enum ContentIdentity: Hashable {
    case none
    case form(Parameters)
    case jsonParameters(Parameters)
    case encoded([UInt8])
    case raw([UInt8], contentType: String)
    case file(URL, contentType: String)
    case parts([RequestBody.Part], contentType: String)
    case made(BodyIdentity)

    init(_ content: Content) {
        switch content.kind {
        case .none: self = .none
        case .form(let parameters): self = .form(parameters)
        case .jsonParameters(let parameters): self = .jsonParameters(parameters)
        case .json(let encode):
            // An encoding that fails sends nothing: such bodies are equal to each other.
            self = .encoded((try? encode()) ?? [])
        case .raw(let bytes, let contentType): self = .raw(bytes, contentType: contentType)
        case .file(let url, let contentType): self = .file(url, contentType: contentType)
        case .stream(let body, let contentType):
            switch body.storage {
            case .parts(let parts, _): self = .parts(parts, contentType: contentType)
            case .stream(let stream): self = .made(stream.identity)
            }
        case .built(_, _, let identity, _): self = .made(identity)
        }
    }
}

/// The identity of a body made when it is sent: one per value, shared by its copies.
final class BodyIdentity: Hashable, Sendable {
    init() {}

    static func == (lhs: BodyIdentity, rhs: BodyIdentity) -> Bool { lhs === rhs }

    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
