package import HTTPTypes

/// What makes two requests the same request, in one canonical form: used
/// to coalesce identical calls in flight, and by a response cache to key
/// what it stores.
///
/// - **method**;
/// - **URL**, normalised: scheme and host lowercased, the default port
///   dropped, query parameters sorted by name (values of one name keep their
///   order);
/// - **body**: the SHA-256 of its bytes (`nil` without a body);
/// - **credential**: the SHA-256 of the credential fields
///   (``CredentialFields``: the call's) — so calls of two users never share
///   a response, and the key holds no secret — or of the principal an `Authenticator`
///   signed them for (`CredentialProvider.principal(of:)`), while they are
///   the fields it signed;
/// - **negotiation**: `Accept` and `Accept-Language`, which choose the
///   representation.
///
/// A request whose body cannot be read twice (a stream) or lives in a file
/// has no key: it is never coalesced or cached.
package struct RequestKey: Sendable, Hashable, CustomStringConvertible {
    /// The method.
    package let method: HTTPRequest.Method
    /// The normalised URL.
    package let url: String
    /// The body's SHA-256 in hexadecimal, or `nil` without a body.
    package let bodyDigest: String?
    /// The SHA-256 of the credential fields in hexadecimal, or `nil` without any.
    package let credential: String?
    /// `Accept` and `Accept-Language`, as sent.
    package let negotiation: String

    /// The key of a request, or `nil` for one with a streamed or file body.
    /// - Parameters:
    ///   - request: The request.
    ///   - credentials: Which of its fields carry credentials.
    package init?(_ request: OutgoingRequest, credentials: CredentialFields) {
        guard let bodyDigest = Self.bodyDigest(request.body) else { return nil }
        let head = request.head
        self.method = head.method
        self.url = Self.normalisedURL(head)
        self.bodyDigest = bodyDigest
        let lines = credentials.identity(of: request).lines
        self.credential = lines.isEmpty ? nil : SHA256.hex(Array(lines.utf8))
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
    package var digest: String {
        SHA256.hex(Array(description.utf8))
    }

    /// The components, one per line (the credential only as its digest).
    package var description: String {
        [method.rawValue, url, bodyDigest ?? "-", credential ?? "-", negotiation].joined(separator: "\n")
    }

    package static func hex(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            let digits: StaticString = "0123456789abcdef"
            digits.withUTF8Buffer { digits in
                for (index, byte) in bytes.enumerated() {
                    out[index * 2] = digits[Int(byte >> 4)]
                    out[index * 2 + 1] = digits[Int(byte & 0x0f)]
                }
            }
            return bytes.count * 2
        }
    }

    /// `scheme://authority/path?sorted-query`.
    package static func normalisedURL(_ head: HTTPRequest) -> String {
        let url = NormalisedURL(head)
        let query = url.query.isEmpty ? "" : "?" + url.query.joined(separator: "&")
        return "\(url.scheme)://\(url.authority)\(url.path)\(query)"
    }

    /// A request's URL in the canonical form keys use, in pieces, so that a
    /// key can be hashed from them without joining them first: scheme and
    /// host lowercased (copied only when they are not already), the
    /// default port dropped, the query's pairs sorted by name (values of one
    /// name keep their order).
    package struct NormalisedURL {
        package let scheme: Substring
        package let authority: Substring
        package let path: Substring
        /// `name=value` pairs, sorted.
        package let query: [Substring]

        package init(_ head: HTTPRequest) {
            (scheme, authority) = Self.origin(of: head)
            let target = Substring(head.path ?? "")
            guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else {
                path = target
                query = []
                return
            }
            path = target[..<mark]
            let pairs = target[target.index(after: mark)...].split(
                separator: "&", omittingEmptySubsequences: true)
            // A stable sort by name: values of one name keep their order.
            query = pairs.enumerated().sorted { lhs, rhs in
                let (left, right) = (RequestKey.name(lhs.element), RequestKey.name(rhs.element))
                return left == right ? lhs.offset < rhs.offset : left < right
            }.map(\.element)
        }

        /// The request's origin: scheme and authority lowercased (copied only
        /// when they are not already), the scheme's default port dropped.
        package static func origin(of head: HTTPRequest) -> (scheme: Substring, authority: Substring) {
            let scheme = lowercased(head.scheme ?? "")
            var authority = lowercased(head.authority ?? "")
            // A cheap look at the last byte first: a key is made on every cached call.
            let last = authority.utf8.last
            if (last == UInt8(ascii: "0") && scheme == "http" && authority.hasSuffix(":80"))
                || (last == UInt8(ascii: "3") && scheme == "https" && authority.hasSuffix(":443"))
            {
                authority =
                    authority[..<(authority.utf8.lastIndex(of: UInt8(ascii: ":")) ?? authority.endIndex)]
            }
            return (scheme, authority)
        }

        private static func lowercased(_ text: String) -> Substring {
            text.utf8.contains(where: { $0 >= 65 && $0 <= 90 })
                ? Substring(text.lowercased()) : Substring(text)
        }
    }

    /// The name of a `name=value` query pair.
    package static func name(_ pair: Substring) -> Substring {
        pair[..<(pair.firstIndex(of: "=") ?? pair.endIndex)]
    }
}
