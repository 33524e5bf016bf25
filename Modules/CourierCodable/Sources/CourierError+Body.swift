public import CourierCore

extension CourierError {
    /// Decodes the failed response's body as a typed server error, for APIs
    /// that answer a 4xx or 5xx with a structured error instead of an envelope.
    ///
    /// ```swift
    /// struct ServerError: Decodable { let error: String; let fields: [String] }
    /// catch let error {
    ///     if let details = try? error.decodeBody(ServerError.self, using: .codable) { … }
    /// }
    /// ```
    /// - Throws: ``/CourierCore/CourierError/Code/decoding`` when there is no body in memory
    ///   or it does not decode.
    public func decodeBody<T: Decodable>(_ type: T.Type, using decoder: any ResponseDecoder)
        throws(CourierError)
        -> T
    {
        guard let bytes = response?.body.bytes, !bytes.isEmpty else {
            throw CourierError(
                .decoding, stage: .decoding, message: "the failed response has no body to decode")
        }
        do {
            return try decoder.decode(T.self, from: bytes, at: [])
        } catch {
            throw CourierError(
                .decoding, stage: .decoding, message: "the error body is not a \(T.self): \(error)",
                request: request, response: response, attempt: attempt, underlying: error)
        }
    }
}
