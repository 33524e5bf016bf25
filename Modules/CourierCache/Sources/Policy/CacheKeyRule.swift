public import CourierCore
public import HTTPTypes

/// What makes two requests the same cache entry.
///
/// The standard key is the request's canonical form, as coalescing uses it
/// (its request key): method, the URL normalised with its query
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

/// Builds ``CacheKey``s from requests under a rule: the components are
/// fed to SHA-256 one after another, each followed by a newline, without
/// being joined first.
enum CacheKeyBuilder {
    /// The key for `request`, or `nil` when it has none: a streamed or file
    /// body, which cannot be read to digest it.
    /// - Parameters:
    ///   - request: The request as it will be sent.
    ///   - parameters: The endpoint's parameters, before encoding.
    ///   - rule: What goes into the key.
    ///   - credential: The credential's digest, when the key must include it.
    /// - Returns: The key, or `nil` for a body that cannot be digested.
    static func key(
        for request: OutgoingRequest, parameters: Parameters?, rule: CacheKeyRule, credential: String?
    ) -> CacheKey? {
        guard let bodyDigest = RequestKey.bodyDigest(request.body) else { return nil }
        var hash = SHA256()
        let head = request.head
        if let custom = rule.custom {
            hash.component("custom")
            hash.component(
                custom(CacheKeyRequest(head: head, parameters: parameters, bodyDigest: bodyDigest)))
        } else {
            let ignored = rule.ignoredParameters
            hash.component(head.method.rawValue)
            let url = RequestKey.NormalisedURL(head)
            hash.update(utf8: url.scheme)
            hash.update(utf8: "://")
            hash.update(utf8: url.authority)
            hash.update(utf8: url.path)
            var separator = UInt8(ascii: "?")
            for pair in url.query where ignored.isEmpty || !ignored.contains(Self.decodedName(pair)) {
                hash.update(byte: separator)
                hash.update(utf8: pair)
                separator = UInt8(ascii: "&")
            }
            hash.component("")
            if !ignored.isEmpty, let parameters {
                hash.component("parameters " + canonical(parameters, ignoring: ignored))
            } else {
                hash.component(bodyDigest ?? "-")
            }
            for name in [HTTPField.Name.accept, .acceptLanguage] {
                // Most requests send neither: no array, no join.
                hash.component(
                    head.headerFields[name] == nil
                        ? "" : head.headerFields[values: name].joined(separator: ", "))
            }
        }
        if let extra = rule.extra { hash.component("extra " + extra()) }
        if let credential { hash.component("credential " + credential) }
        return CacheKey(&hash)
    }

    /// A query pair's name, percent-decoded.
    private static func decodedName(_ pair: Substring) -> String {
        let name = RequestKey.name(pair)
        return name.percentDecoded() ?? String(name)
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

extension SHA256 {
    /// Adds `text` and a newline.
    fileprivate mutating func component(_ text: String) {
        update(utf8: text)
        update(byte: UInt8(ascii: "\n"))
    }
}
