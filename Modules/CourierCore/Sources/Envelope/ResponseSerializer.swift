import HTTPTypes

/// Turns a validated response into an endpoint's model.
///
/// Endpoints pick one by their response type; use ``map(_:)`` for anything
/// the built-ins do not cover.
public struct ResponseSerializer<Response: Sendable>: Sendable {
    let serialize: @Sendable (RawResponse, DecodingInput) throws -> Response

    /// A serializer that decodes with the call's ``ResponseDecoder`` from
    /// the body (after the endpoint's transformer) at `path`, from the
    /// body's root — whatever envelope the endpoint has, whose code
    /// validation has checked already. Package-level: CourierCodable's
    /// `decodable(at:)` puts a public name in front.
    package static func decoding(at path: [String]) -> Self where Response: Decodable {
        Self { response, input in
            let (decoder, body) = try input.decoderAndBody(of: response, for: Response.self)
            return try decoder.decode(
                Response.self, from: input.transformer?.transform(body) ?? body, at: path)
        }
    }

    /// A model made by a closure from the raw response. Errors it throws
    /// become ``CourierError/Code/decoding``.
    public static func map(_ transform: @escaping @Sendable (RawResponse) throws -> Response) -> Self {
        Self { response, _ in try transform(response) }
    }
}

/// What the decoding stage hands a serializer.
struct DecodingInput: Sendable {
    var decoder: (any ResponseDecoder)?
    var envelope: EnvelopeFormat?
    var envelopeHead: EnvelopeHead?
    var transformer: (any ResponseTransformer)?

    /// The decoder and the body bytes to decode a `type` from.
    /// - Throws: ``CourierError/Code/noDecoder`` without a decoder;
    ///   ``CourierError/Code/decoding`` for a body written to a file.
    func decoderAndBody(of response: RawResponse, for type: Any.Type) throws(CourierError)
        -> (any ResponseDecoder, [UInt8])
    {
        guard let decoder else { throw CourierError.noDecoder(for: type) }
        guard case .bytes(let body) = response.body else {
            throw CourierError(
                .decoding, stage: .decoding,
                message: "the body was written to a file; use a download endpoint to get it")
        }
        return (decoder, body)
    }
}

extension ResponseSerializer where Response == RawResponse {
    /// The response as it came.
    public static var raw: Self { Self { response, _ in response } }
}

extension ResponseSerializer where Response: Decodable {
    /// Decodes the model with the endpoint's or client's ``ResponseDecoder``:
    /// from the envelope's payload when there is an envelope, otherwise from
    /// the whole body (or from a transformer's output).
    public static func decodable() -> Self {
        Self { response, input in
            let (decoder, body) = try input.decoderAndBody(of: response, for: Response.self)
            if let transformer = input.transformer {
                return try decoder.decode(Response.self, from: transformer.transform(body), at: [])
            }
            guard let format = input.envelope else {
                if body.isEmpty, let empty = Self.emptyValue() { return empty }
                return try decoder.decode(Response.self, from: body, at: [])
            }
            let head = try input.envelopeHead ?? decoder.readEnvelope(body, format: format)
            if head.data != .present {
                let what = head.data == .null ? "null" : "missing"
                if format.missingData == .decodeAsNull, let empty = Self.emptyValue() { return empty }
                throw CourierError(
                    .envelope, stage: .envelope,
                    message: "the envelope's \(format.dataPath.joined(separator: ".")) is \(what), "
                        + "but \(Response.self) is not optional")
            }
            return try decoder.decode(Response.self, from: body, at: format.dataPath, envelope: head)
        }
    }

    /// The value for "no payload": `nil` for optionals, ``EmptyResponse`` for itself.
    private static func emptyValue() -> Response? {
        if let optional = Response.self as? any OptionalMarker.Type,
            let value = optional.courierNone as? Response
        {
            return value
        }
        return EmptyResponse() as? Response
    }
}

/// Lets the decoding stage recognise optional models without knowing their wrapped type.
protocol OptionalMarker {
    static var courierNone: Self { get }
}

extension Optional: OptionalMarker {
    static var courierNone: Self { nil }
}

extension CourierError {
    /// No ``ResponseDecoder`` for a model of type `type`.
    static func noDecoder(for type: Any.Type) -> CourierError {
        CourierError(
            .noDecoder, stage: .decoding,
            message: "no ResponseDecoder is configured to decode \(type); "
                + "pass one to the client (for example .codable from CourierCodable)")
    }
}
