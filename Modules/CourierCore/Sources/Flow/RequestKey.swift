import HTTPTypes

/// What makes two requests the same request, in one canonical form: used
/// to coalesce identical calls in flight, and by a response cache to key
/// what it stores.
///
/// - **method**;
/// - **URL**, normalised: scheme and host lowercased, the default port
///   dropped, query parameters sorted by name (values of one name keep their
///   order);
/// - **body**: the SHA-256 of its bytes (`nil` without a body);
/// - **credential**: the SHA-256 of the `Authorization`, `Proxy-Authorization`
///   and `Cookie` fields — so calls of two users never share a response,
///   and the key holds no secret;
/// - **negotiation**: `Accept` and `Accept-Language`, which choose the
///   representation.
///
/// A request whose body cannot be read twice (a stream) or lives in a file
/// has no key: it is never coalesced or cached.
public struct RequestKey: Sendable, Hashable, CustomStringConvertible {
    /// The method.
    public let method: HTTPRequest.Method
    /// The normalised URL.
    public let url: String
    /// The body's SHA-256 in hexadecimal, or `nil` without a body.
    public let bodyDigest: String?
    /// The SHA-256 of the credential fields in hexadecimal, or `nil` without any.
    public let credential: String?
    /// `Accept` and `Accept-Language`, as sent.
    public let negotiation: String

    /// The key of a request, or `nil` for one with a streamed or file body.
    public init?(_ request: OutgoingRequest) {
        guard let bodyDigest = Self.bodyDigest(request.body) else { return nil }
        let head = request.head
        self.method = head.method
        self.url = Self.normalisedURL(head)
        self.bodyDigest = bodyDigest
        let credentials = [HTTPField.Name.authorization, .proxyAuthorization, .cookie].flatMap { name in
            head.headerFields[values: name].map { "\(name.canonicalName): \($0)\n" }
        }
        self.credential = credentials.isEmpty ? nil : SHA256.hex(Array(credentials.joined().utf8))
        self.negotiation = [HTTPField.Name.accept, .acceptLanguage].map { name in
            head.headerFields[values: name].joined(separator: ", ")
        }.joined(separator: "\n")
    }

    /// The SHA-256 of a body's bytes in hexadecimal: `.some(nil)` without a
    /// body, `nil` for one that cannot be read twice or lives in a file
    /// (such a request has no key).
    package static func bodyDigest(_ body: RequestBody?) -> String?? {
        guard let body else { return .some(nil) }
        guard let parts = body.parts else { return nil }
        var hash = SHA256()
        for part in parts {
            guard case .bytes(let bytes) = part else { return nil }
            hash.update(bytes)
        }
        return .some(hex(hash.finalize()))
    }

    /// One SHA-256 over every component, in hexadecimal: a fixed-length name
    /// for the key (a cache's file name or database key).
    public var digest: String {
        SHA256.hex(Array(description.utf8))
    }

    /// The components, one per line (the credential only as its digest).
    public var description: String {
        [method.rawValue, url, bodyDigest ?? "-", credential ?? "-", negotiation].joined(separator: "\n")
    }

    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }

    /// `scheme://authority/path?sorted-query`.
    package static func normalisedURL(_ head: HTTPRequest) -> String {
        let scheme = (head.scheme ?? "").lowercased()
        var authority = (head.authority ?? "").lowercased()
        if (scheme == "http" && authority.hasSuffix(":80"))
            || (scheme == "https" && authority.hasSuffix(":443"))
        {
            authority = String(authority[..<(authority.lastIndex(of: ":") ?? authority.endIndex)])
        }
        let target = head.path ?? ""
        guard let mark = target.firstIndex(of: "?") else { return "\(scheme)://\(authority)\(target)" }
        let path = target[..<mark]
        let pairs = target[target.index(after: mark)...].split(
            separator: "&", omittingEmptySubsequences: true)
        // A stable sort by name: values of one name keep their order.
        let sorted = pairs.enumerated().sorted { lhs, rhs in
            let (left, right) = (Self.name(lhs.element), Self.name(rhs.element))
            return left == right ? lhs.offset < rhs.offset : left < right
        }.map(\.element)
        return "\(scheme)://\(authority)\(path)?\(sorted.joined(separator: "&"))"
    }

    private static func name(_ pair: Substring) -> Substring {
        pair[..<(pair.firstIndex(of: "=") ?? pair.endIndex)]
    }
}
