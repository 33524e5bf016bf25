public import CourierCore

/// One delivery of a cached call: a result and where it came from.
///
/// A call through ``CourierCore/APIClient/deliveries(_:plugins:)`` delivers
/// once or twice, always in this order, and its last delivery says so
/// (``isLast``):
/// - a stored response (``CacheSource/cache``), or the ``/CourierCore/CourierError/Code/cache``
///   error that says why a stored one could not be used — never for a
///   plain miss;
/// - the network's result (``CacheSource/network``, or
///   ``CacheSource/revalidated`` when the server confirmed the stored
///   response with a 304), unless the read mode answered from storage.
public struct CacheDelivery<Model: Sendable>: Sendable {
    /// Where the result came from.
    public let source: CacheSource
    /// The model with its response, or the error.
    public let result: Result<Reply<Model>, CourierError>
    /// Whether nothing follows this delivery.
    public let isLast: Bool

    /// The model. - Throws: the delivery's error.
    public func get() throws(CourierError) -> Model {
        try result.get().model
    }

    /// The model, or `nil` for a failed delivery.
    public var model: Model? { try? result.get().model }
}

/// Where a delivery came from.
public struct CacheSource: Hashable, Sendable, CustomStringConvertible {
    let rawValue: String

    /// From storage; the network was not asked for it.
    public static let cache = CacheSource(rawValue: "cache")
    /// From the network.
    public static let network = CacheSource(rawValue: "network")
    /// From storage, after the server confirmed it is current (304 Not
    /// Modified): as fresh as ``network``.
    public static let revalidated = CacheSource(rawValue: "revalidated")

    /// `cache`, `network` or `revalidated`.
    public var description: String { rawValue }
}

extension RawResponse {
    /// Where this response came from when a ``ResponseCache`` took part in
    /// the call; `nil` when none did.
    public var cacheSource: CacheSource? {
        switch cacheOrigin {
        case .storage: .cache
        case .revalidated: .revalidated
        case .network: .network
        case nil: nil
        }
    }
}

extension APIClient.Configuration {
    /// The response cache calls consult; `nil` (none) by default.
    public var cache: ResponseCache? {
        get { responseCache as? ResponseCache }
        set { responseCache = newValue }
    }
}
