public import CourierCore

extension ResponseSerializer where Response: Decodable {
    /// Decodes the model found at `keyPath` — dot-separated member names
    /// from the body's root, `data.items` — with the call's decoder
    /// (``CodableDecoder`` or CourierJansson's, both read the path in
    /// place): Moya's `map(_:atKeyPath:)`, ACINetworking's
    /// `map(atKeyPath:)`. An envelope, when the endpoint has one, is still
    /// validated first (its code, its message); the path is read from the
    /// body's root all the same.
    public static func decodable(at keyPath: String) -> Self {
        .decoding(at: keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }
}

extension Endpoint where Response: Decodable {
    /// A copy whose model is decoded from `keyPath` of the body
    /// (`ResponseSerializer.decodable(at:)`), keeping its
    /// response handlers.
    ///
    /// ```swift
    /// // {"data": {"items": [{"id": 1}], "next": null}}
    /// let items = Endpoint<[Item]>(.get("items"), on: api).decoding(at: "data.items")
    /// ```
    public func decoding(at keyPath: String) -> Endpoint {
        var copy = self
        copy.serializer = .decodable(at: keyPath)
        return copy
    }
}
