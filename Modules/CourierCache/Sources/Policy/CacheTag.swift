import CourierCore
import HTTPTypes

/// A label stored responses can be removed by, all at once, in every tier
/// (``ResponseCache/removeAll(tagged:)``).
///
/// Like a ``CacheKey`` it is kept as a SHA-256 digest, so a store holds no
/// name, URL or query. Every stored response carries the tags of:
/// - its **target URI** — scheme, host, path and query — so that a
///   successful unsafe request invalidates every stored response to that
///   URI, each variant and each user's (RFC 9111 §4.4);
/// - its **endpoint** — node, method, route with its values and query
///   parameters — for `ResponseCache.remove(endpoint)`;
/// - each **path prefix** at a segment boundary (`/v1`, `/v1/users`,
///   `/v1/users/7` on its origin), for ``ResponseCache/removeAll(under:)``;
/// - the names in its endpoint's ``CachePolicy/tags``.
public struct CacheTag: Sendable, Hashable, CustomStringConvertible {
    /// 64 lowercase hexadecimal digits.
    public let digest: String

    /// The tag a policy names `name` (``CachePolicy/tags``).
    public init(_ name: String) {
        self.init(kind: "tag", name)
    }

    /// The tag whose ``digest`` is `digest` (a tag a store read back);
    /// `nil` for anything but 64 lowercase hexadecimal digits.
    public init?(digest: String) {
        guard digest.utf8.count == 64,
            digest.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        self.digest = digest
    }

    private init(kind: String, _ name: String) {
        digest = SHA256.hex(Array("\(kind)\n\(name)".utf8))
    }

    /// The digest.
    public var description: String { digest }

    // MARK: - The tags every stored response carries

    /// Every tag a response to `head`, from a call of `spec`, is stored
    /// with: its target URI, its endpoint, its path's prefixes and `names`.
    static func stored(for head: HTTPRequest, endpoint spec: EndpointSpec, named names: Set<String>) -> Set<
        CacheTag
    > {
        let url = RequestKey.NormalisedURL(head)
        var tags = Set(prefixes(of: url))
        tags.insert(target(of: url))
        tags.insert(endpoint(spec))
        for name in names { tags.insert(CacheTag(name)) }
        return tags
    }

    /// The tag of the request's target URI.
    static func target(of head: HTTPRequest) -> CacheTag {
        target(of: RequestKey.NormalisedURL(head))
    }

    private static func target(of url: RequestKey.NormalisedURL) -> CacheTag {
        let query = url.query.isEmpty ? "" : "?" + url.query.joined(separator: "&")
        return CacheTag(kind: "target", "\(url.scheme)://\(url.authority)\(url.path)\(query)")
    }

    /// The tag of an endpoint's calls: its node, method, route with values,
    /// and query parameters — what `ResponseCache.remove(endpoint)` is given.
    static func endpoint(_ spec: EndpointSpec) -> CacheTag {
        var name = "\(spec.node.name)\n\(spec.route.method.rawValue) \(spec.route.path.escaped)"
        if !spec.query.pairs.isEmpty {
            name += "\n" + CacheKeyBuilder.canonical(spec.query, ignoring: [])
        }
        if let encoded = spec.encodedQuery { name += "\n" + encoded }
        return CacheTag(kind: "endpoint", name)
    }

    /// The tag ``ResponseCache/removeAll(under:)`` looks for: the path of
    /// `head` (without a trailing slash, nor the query) on its origin.
    static func prefix(of head: HTTPRequest) -> CacheTag {
        let url = RequestKey.NormalisedURL(head)
        return prefix(origin: "\(url.scheme)://\(url.authority)", path: url.path)
    }

    private static func prefix(origin: String, path: some StringProtocol) -> CacheTag {
        var path = String(path)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return CacheTag(kind: "prefix", origin + (path.isEmpty ? "/" : path))
    }

    /// The tags of the path's prefixes at each segment boundary on its
    /// origin, the whole path included: at most 16.
    private static func prefixes(of url: RequestKey.NormalisedURL) -> [CacheTag] {
        let origin = "\(url.scheme)://\(url.authority)"
        let path = url.path
        var tags = [prefix(origin: origin, path: "/")]
        var end = path.startIndex
        while tags.count < 16, end < path.endIndex {
            let next = path[path.index(after: end)...].firstIndex(of: "/") ?? path.endIndex
            tags.append(prefix(origin: origin, path: path[..<next]))
            end = next
        }
        return tags
    }
}
