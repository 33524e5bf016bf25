import CourierCore
import HTTPTypes

/// What makes two requests the same cache entry.
///
/// The standard key is the request's canonical form, as coalescing uses it
/// (``CourierCore/RequestKey``): method, the URL normalised with its query
/// sorted, a digest of the body, and `Accept` / `Accept-Language`. A rule
/// may leave out parameters that change on every call (timestamps, nonces,
/// signatures — from the query and from a form or JSON body), add an extra
/// component (a user id, an app version), or replace the standard
/// components with a function of its own. Whatever goes in, the key is its
/// SHA-256 (``CacheKey``): the stores never see it.
///
/// When a response to a credentialed request is stored
/// (``CachePolicy/storesCredentialedResponses``), a digest of the credential
/// is always part of the key — custom keys included.
///
/// ```swift
/// let list = Endpoint<[Item]>(.get("items"), on: .api)
///     .cache(.cancelNetwork, key: .ignoring(["ts", "nonce"]).adding { Session.current.userID })
/// ```
public struct CacheKeyRule: Sendable {
    /// Query and body parameters left out of the key.
    public var ignoredParameters: Set<String>
    /// A component added to the key, asked for on every call.
    public var extra: (@Sendable () -> String)?
    /// Replaces the standard components (method, URL, body, negotiation).
    public var custom: (@Sendable (CacheKeyRequest) -> String)?

    /// Creates a rule.
    public init(
        ignoredParameters: Set<String> = [], extra: (@Sendable () -> String)? = nil,
        custom: (@Sendable (CacheKeyRequest) -> String)? = nil
    ) {
        self.ignoredParameters = ignoredParameters
        self.extra = extra
        self.custom = custom
    }

    /// The standard key.
    public static var standard: CacheKeyRule { CacheKeyRule() }

    /// The standard key without these query and body parameters.
    public static func ignoring(_ names: Set<String>) -> CacheKeyRule {
        CacheKeyRule(ignoredParameters: names)
    }

    /// A key made by `key` from the request instead of the standard components.
    public static func custom(_ key: @escaping @Sendable (CacheKeyRequest) -> String) -> CacheKeyRule {
        CacheKeyRule(custom: key)
    }

    /// This rule with `extra` added as a component.
    public func adding(_ extra: @escaping @Sendable () -> String) -> CacheKeyRule {
        var copy = self
        copy.extra = extra
        return copy
    }
}

/// What a custom key function sees of a request.
public struct CacheKeyRequest: Sendable {
    /// The request head as the per-call interceptors left it.
    public let head: HTTPRequest
    /// The body's parameters (a form or JSON parameters body), after
    /// parameter interceptors.
    public let parameters: Parameters?
    /// The SHA-256 of the body's bytes, `nil` without a body.
    public let bodyDigest: String?
}

/// Builds ``CacheKey``s from requests under a rule.
enum CacheKeyBuilder {
    /// The key for `request`, or `nil` when it has none: a streamed or file
    /// body, which cannot be read to digest it.
    /// - Parameter credential: The credential's digest, when the key must
    ///   include it.
    static func key(
        for request: OutgoingRequest, parameters: Parameters?, rule: CacheKeyRule, credential: String?
    ) -> CacheKey? {
        guard let bodyDigest = RequestKey.bodyDigest(request.body) else { return nil }
        var components: [String]
        if let custom = rule.custom {
            components = [
                "custom",
                custom(CacheKeyRequest(head: request.head, parameters: parameters, bodyDigest: bodyDigest)),
            ]
        } else {
            let head = request.head
            let ignored = rule.ignoredParameters
            let body: String
            if !ignored.isEmpty, let parameters {
                body = "parameters " + canonical(parameters, ignoring: ignored)
            } else {
                body = bodyDigest ?? "-"
            }
            components = [
                head.method.rawValue, url(head, ignoring: ignored), body,
                head.headerFields[values: .accept].joined(separator: ", "),
                head.headerFields[values: .acceptLanguage].joined(separator: ", "),
            ]
        }
        if let extra = rule.extra { components.append("extra " + extra()) }
        if let credential { components.append("credential " + credential) }
        return CacheKey(components: components)
    }

    /// The normalised URL without the ignored query parameters.
    static func url(_ head: HTTPRequest, ignoring ignored: Set<String>) -> String {
        let normalised = RequestKey.normalisedURL(head)
        guard !ignored.isEmpty, let mark = normalised.firstIndex(of: "?") else { return normalised }
        let kept = normalised[normalised.index(after: mark)...].split(separator: "&").filter { pair in
            let name = pair[..<(pair.firstIndex(of: "=") ?? pair.endIndex)]
            return !ignored.contains(String(name).removingPercentEncodingIfPossible)
        }
        let base = normalised[..<mark]
        return kept.isEmpty ? String(base) : "\(base)?\(kept.joined(separator: "&"))"
    }

    /// Top-level parameters without the ignored ones, sorted by name, as
    /// JSON (which tells every `ParameterValue` apart; a NaN, which JSON
    /// cannot hold, by its description).
    static func canonical(_ parameters: Parameters, ignoring ignored: Set<String>) -> String {
        let kept = Parameters(
            parameters.pairs.filter { !ignored.contains($0.key) }.sorted { $0.key < $1.key })
        guard let json = try? kept.jsonBytes() else { return String(describing: kept.pairs) }
        return String(decoding: json, as: UTF8.self)
    }
}

extension String {
    /// Percent-decoded, or unchanged when it is not valid percent-encoding.
    fileprivate var removingPercentEncodingIfPossible: String {
        guard contains("%") else { return self }
        var bytes: [UInt8] = []
        var utf8 = self.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next(), let low = utf8.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return self }
            bytes.append(value)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
