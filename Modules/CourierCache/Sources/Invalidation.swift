@_spi(Locking) import CourierCore
import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ResponseCache {
    /// After a successful unsafe request, every stored response to its
    /// target URI is out of date — each user's and each variant's — and so
    /// are those to the URIs its `Location` and `Content-Location` name on
    /// the same origin (RFC 9111 §4.4; another origin's never).
    func invalidate(after sent: HTTPRequest, _ response: RawResponse) {
        forget(tagged: .target(of: sent))
        for name in [HTTPField.Name.location, .contentLocation] {
            guard let value = response.headerFields[name],
                let target = Self.sameOrigin(value, as: sent)
            else { continue }
            forget(tagged: .target(of: target))
        }
    }

    /// `reference` resolved against `request`'s URI, when it is on the same
    /// origin; `nil` otherwise.
    private static func sameOrigin(_ reference: String, as request: HTTPRequest) -> HTTPRequest? {
        guard let scheme = request.scheme, let authority = request.authority,
            let base = URL(string: "\(scheme)://\(authority)\(request.path ?? "/")"),
            let resolved = URL(string: reference, relativeTo: base)?.absoluteURL,
            let target = HTTPRequest(getting: resolved.absoluteString),
            RequestKey.NormalisedURL.origin(of: target) == RequestKey.NormalisedURL.origin(of: request)
        else { return nil }
        return target
    }
}

extension HTTPRequest {
    /// A GET of the absolute URL `url` — scheme, host and port, path and
    /// query — for finding the tags of what is stored there; `nil` for a URL
    /// without a scheme and a host.
    init?(getting url: String) {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            let host = components.percentEncodedHost, !host.isEmpty
        else { return nil }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.init(
            method: .get, scheme: scheme, authority: components.port.map { "\(host):\($0)" } ?? host,
            path: path + (components.percentEncodedQuery.map { "?" + $0 } ?? ""))
    }
}

/// The cache's part in a call of an unsafe method (POST, PUT, PATCH,
/// DELETE, any extension method) whose endpoint has no cache policy: it
/// reads and stores nothing, and after a 2xx or 3xx invalidates what is
/// stored for the request's target URI (RFC 9111 §4.4: a cache MUST).
final class InvalidationPass: CachePass {
    private let cache: ResponseCache

    init(cache: ResponseCache) {
        self.cache = cache
    }

    func read(_ request: OutgoingRequest, identity: PassIdentity) async -> CacheRead { .network([:]) }

    func received(_ result: Result<RawResponse, CourierError>, sent: OutgoingRequest) async -> CacheReceipt {
        if case .success(let response) = result, (200..<400).contains(response.statusCode) {
            cache.invalidate(after: sent.head, response)
        }
        return .result(result)
    }

    func decoded(_ model: any Sendable) {}
    func rejected(_ error: CourierError) {}
    func refreshInBackground(_ refresh: @escaping @Sendable () async -> CourierError?) {}

    /// The methods RFC 9110 §9.2.1 defines as safe: every other invalidates.
    static let safeMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .trace]
}
