/// Turns response bytes into models, and reads envelopes: the one seam for
/// JSON libraries.
///
/// Core knows no JSON library. The pipeline asks the decoder twice per
/// response at most: ``readEnvelope(_:format:)`` when the node has an
/// ``EnvelopeFormat`` (the code decides success before any model is
/// decoded), then ``decode(_:from:at:envelope:)`` for the payload — or
/// ``decode(_:from:at:)`` for the whole body when there is no envelope.
///
/// ### Use an existing one
/// `CourierCodable`'s `CodableDecoder` (`.codable`) runs Foundation's
/// `JSONDecoder`; `CourierJansson`'s `JanssonDecoder` parses once with
/// jansson and reads the envelope and the payload from the same tree. Pick
/// one per client (``APIClient/Configuration/decoder``), or override it per
/// endpoint.
///
/// ### Implement your own
/// Decode `type` from the value at `path` (empty for the whole document)
/// and throw `DecodingError` when it does not fit; the pipeline wraps it in
/// ``CourierError`` with code ``CourierError/Code/decoding``. That is all a
/// decoder for bodies without an envelope needs:
///
/// ```swift
/// struct PropertyListDecoding: ResponseDecoder {
///     func decode<T: Decodable>(_ type: T.Type, from body: [UInt8], at path: [String]) throws -> T {
///         try PropertyListDecoder().decode(T.self, from: Data(body))   // path: [] only
///     }
/// }
/// ```
///
/// A decoder that reads envelopes too implements `readEnvelope(_:format:)`
/// and, to decode the payload from its own parse, `decode(_:from:at:envelope:)`:
/// both are in the `Decoding` SPI (`@_spi(Decoding) import CourierCore`),
/// with the envelope's head and read error, so that the call API stays
/// free of them. Without them, a node with an ``EnvelopeFormat`` fails with
/// ``CourierError/Code/envelope``, saying the decoder reads no envelopes.
public protocol ResponseDecoder: Sendable {
    /// Decodes the value at `path` (object keys; empty means the root).
    /// - Parameters:
    ///   - type: The model type.
    ///   - body: The response body, exactly as received (a UTF-8 byte order
    ///     mark included, if the server sent one).
    ///   - path: Object keys from the root to the value; empty for the root.
    /// - Returns: The decoded model.
    /// - Throws: `DecodingError` when the value does not fit the type.
    func decode<T: Decodable>(_ type: T.Type, from body: [UInt8], at path: [String]) throws -> T

    /// Reads an envelope's code, message and whether `data` is present.
    /// - Parameters:
    ///   - body: The response body.
    ///   - format: Where the code, message and payload are.
    /// - Returns: The code, the message and whether the payload is there.
    /// - Throws: ``EnvelopeReadError`` when the body is not a well-formed envelope.
    @_spi(Decoding) func readEnvelope(_ body: [UInt8], format: EnvelopeFormat) throws -> EnvelopeHead

    /// Decodes the envelope's payload at `path`, given the head that
    /// ``readEnvelope(_:format:)`` returned for the same body: a decoder that
    /// kept its parse in ``EnvelopeHead/parsedBody`` decodes from it instead of
    /// parsing again. The default parses again.
    @_spi(Decoding) func decode<T: Decodable>(
        _ type: T.Type, from body: [UInt8], at path: [String], envelope: EnvelopeHead
    )
        throws -> T
}

extension ResponseDecoder {
    /// Reads no envelope: a decoder that implements only
    /// ``decode(_:from:at:)`` fails an enveloped response with
    /// ``CourierError/Code/envelope``, saying so.
    /// - Parameters:
    ///   - body: The response body.
    ///   - format: Where the code, message and payload would be.
    /// - Returns: Never returns.
    /// - Throws: ``EnvelopeReadError`` with reason ``EnvelopeReadError/Reason/unsupported``.
    @_spi(Decoding) public func readEnvelope(_ body: [UInt8], format: EnvelopeFormat) throws -> EnvelopeHead {
        throw EnvelopeReadError(
            .unsupported,
            "\(type(of: self)) reads no envelopes; use one that does (CodableDecoder, JanssonDecoder)")
    }

    /// Parses again: for decoders that keep nothing from ``readEnvelope(_:format:)``.
    @_spi(Decoding) public func decode<T: Decodable>(
        _ type: T.Type, from body: [UInt8], at path: [String], envelope: EnvelopeHead
    )
        throws -> T
    {
        try decode(type, from: body, at: path)
    }
}

/// What an envelope said, without its payload decoded.
///
/// Equal when code, message and data presence are; ``parsedBody`` is not compared.
@_spi(Decoding) public struct EnvelopeHead: Sendable, Hashable {
    /// Whether the payload key holds a value.
    public enum DataPresence: Sendable, Hashable {
        /// A non-null value.
        case present
        /// JSON `null`.
        case null
        /// The key is absent.
        case missing
    }

    /// The code.
    public var code: EnvelopeCode
    /// The message, if any message key is present and a string.
    public var message: String?
    /// Whether the payload is there.
    public var data: DataPresence
    /// The decoder's own parse of the body, if it keeps one for decoding the
    /// payload without parsing twice; opaque to everything else.
    public var parsedBody: (any Sendable)?

    /// Creates an envelope head.
    public init(code: EnvelopeCode, message: String?, data: DataPresence, parsedBody: (any Sendable)? = nil) {
        self.code = code
        self.message = message
        self.data = data
        self.parsedBody = parsedBody
    }

    /// Equal code, message and data presence.
    public static func == (lhs: EnvelopeHead, rhs: EnvelopeHead) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.data == rhs.data
    }

    /// Hashes code, message and data presence.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(data)
    }
}

/// Why a body is not a well-formed envelope.
@_spi(Decoding) public struct EnvelopeReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong: an open set.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        /// A stable identifier.
        public let rawValue: String
        /// Creates a reason.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// A stable identifier.
        public var description: String { rawValue }

        /// The body is not JSON (truncated, HTML, empty, …).
        public static let notJSON = Reason("notJSON")
        /// The body is JSON but not an object.
        public static let notObject = Reason("notObject")
        /// The code key is absent.
        public static let missingCode = Reason("missingCode")
        /// The code is neither an integer nor a string.
        public static let invalidCode = Reason("invalidCode")
        /// The decoder reads no envelopes (it implements only `decode(_:from:at:)`).
        public static let unsupported = Reason("unsupported")
    }

    /// What is wrong.
    public var reason: Reason
    /// Details, such as the key path and the type found.
    public var detail: String

    /// Creates an error.
    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// `reason: detail`.
    public var description: String { "\(reason): \(detail)" }
}

/// Rewrites a response body before it is decoded (for example: unwrap
/// `data` from an envelope).
public protocol ResponseTransformer: Sendable {
    /// Returns the bytes to decode instead of `body`.
    /// - Throws: Anything; the call fails with ``CourierError/Code/decoding``.
    func transform(_ body: [UInt8]) throws -> [UInt8]
}

/// The model for endpoints whose response has no payload worth decoding.
public struct EmptyResponse: Sendable, Hashable, Decodable {
    /// Creates an empty response.
    public init() {}
    /// Accepts any value, including `null`.
    public init(from decoder: any Decoder) throws {}
}
