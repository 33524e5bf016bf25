import CJansson
import CourierCodable
import CourierCore
public import Foundation

/// Decodes any `Decodable` straight from jansson's tree: no `JSONValue`, no
/// Foundation parser in between. It follows `JSONDecoder`'s rules (the
/// conformance tests run the same fixtures through both) and is faster.
///
/// ```swift
/// let user = try JanssonDecoder().decode(User.self, from: bytes)
/// let client = APIClient(transport: CurlTransport.shared, decoder: .jansson)
/// ```
///
/// Differences from `JSONDecoder`, all at the edges (each one tested):
/// - a document with an integer beyond 64 bits (`UInt64` above `Int64.max`,
///   say) is decoded by `JSONDecoder` instead, with the same strategies;
/// - `Decimal` values come from jansson's `Double`, so they are exact up to
///   17 significant digits; so does an integer written as a real beyond 2^53
///   (`8.98e18` decodes to the nearest `Double`'s integer);
/// - a duplicate key keeps its last value (JSONDecoder keeps the first); set
///   ``JanssonOptions/rejectDuplicateKeys`` to refuse such documents;
/// - RFC 8259 strictly: trailing commas are refused (JSONDecoder accepts
///   them); a number below the smallest subnormal reads as 0 (JSONDecoder
///   refuses it);
/// - an object key holding a NUL (`"a\u0000b"`) is refused with a decoding
///   error, here and by `JSONValue(parsing:)`: jansson keeps keys as C
///   strings (JSONDecoder accepts such a key).
public struct JanssonDecoder: Sendable {
    /// How JSON keys map to `CodingKey`s.
    public enum KeyDecodingStrategy: Sendable {
        /// Keys as they are.
        case useDefaultKeys
        /// `first_name` → `firstName`, by `JSONDecoder`'s rules.
        case convertFromSnakeCase
        /// Your mapping, given the coding path with the key last.
        case custom(@Sendable ([any CodingKey]) -> any CodingKey)
    }

    /// How dates are read.
    public enum DateDecodingStrategy: Sendable {
        /// `Date`'s own `Decodable` (seconds since 2001-01-01).
        case deferredToDate
        /// A number of seconds since 1970.
        case secondsSince1970
        /// A number of milliseconds since 1970.
        case millisecondsSince1970
        /// An ISO 8601 string (`2026-11-22T10:00:00Z`).
        case iso8601
        /// Your function.
        case custom(@Sendable (any Decoder) throws -> Date)
    }

    /// How `Data` is read.
    public enum DataDecodingStrategy: Sendable {
        /// `Data`'s own `Decodable` (an array of bytes).
        case deferredToData
        /// A base64 string.
        case base64
        /// Your function.
        case custom(@Sendable (any Decoder) throws -> Data)
    }

    /// How strings stand for numbers JSON cannot write.
    public enum NonConformingFloatDecodingStrategy: Sendable {
        /// Refuse them.
        case `throw`
        /// These strings mean +∞, −∞ and NaN.
        case convertFromString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }

    /// How keys are mapped.
    public var keyDecodingStrategy: KeyDecodingStrategy
    /// How dates are read.
    public var dateDecodingStrategy: DateDecodingStrategy
    /// How `Data` is read.
    public var dataDecodingStrategy: DataDecodingStrategy
    /// How non-conforming floats are read.
    public var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy
    /// Parsing limits.
    public var options: JanssonOptions

    /// Creates a decoder with `JSONDecoder`'s defaults.
    public init(
        keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys,
        dateDecodingStrategy: DateDecodingStrategy = .deferredToDate,
        dataDecodingStrategy: DataDecodingStrategy = .base64,
        nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy = .throw,
        options: JanssonOptions = .init()
    ) {
        self.keyDecodingStrategy = keyDecodingStrategy
        self.dateDecodingStrategy = dateDecodingStrategy
        self.dataDecodingStrategy = dataDecodingStrategy
        self.nonConformingFloatDecodingStrategy = nonConformingFloatDecodingStrategy
        self.options = options
    }

    /// Decodes a `T` from the whole document.
    /// - Throws: `DecodingError` with the coding path; a parse failure is
    ///   `dataCorrupted` whose underlying error is a ``JanssonError`` with the
    ///   line and column.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let document: JanssonDocument
        do {
            document = try JanssonDocument.parse(bytes, options: options)
        } catch let error where error.kind == .numberOutOfRange {
            return try codableFallback.decode(T.self, from: bytes, at: [])
        } catch {
            throw Self.corrupted(error)
        }
        return try decode(T.self, in: document, at: [])
    }

    /// Decodes a `T` from the node at `path` (object keys) in a parsed document.
    func decode<T: Decodable>(_ type: T.Type, in document: JanssonDocument, at path: [String]) throws -> T {
        var node = document.root
        for key in path {
            guard courier_json_typeof(node) == JSON_OBJECT,
                let child = json_object_getn(node, key, key.utf8.count)
            else {
                throw DecodingError.keyNotFound(
                    JanssonKey(key),
                    .init(
                        codingPath: [], debugDescription: "no \(path.joined(separator: ".")) in the document")
                )
            }
            node = child
        }
        let decoder = JanssonDecoding(node: node, document: document, settings: settings)
        return try decoder.unbox(T.self)
    }

    var settings: JanssonDecoding.Settings {
        JanssonDecoding.Settings(
            keys: keyDecodingStrategy, dates: dateDecodingStrategy, data: dataDecodingStrategy,
            floats: nonConformingFloatDecodingStrategy, maxDepth: options.maxDepth)
    }

    static func corrupted(_ error: JanssonError) -> DecodingError {
        DecodingError.dataCorrupted(
            .init(
                codingPath: [], debugDescription: "The given data was not valid JSON: \(error)",
                underlyingError: error))
    }

    /// Gives `decoder` this decoder's strategies.
    func configure(_ decoder: JSONDecoder) {
        switch keyDecodingStrategy {
        case .useDefaultKeys: decoder.keyDecodingStrategy = .useDefaultKeys
        case .convertFromSnakeCase: decoder.keyDecodingStrategy = .convertFromSnakeCase
        case .custom(let map): decoder.keyDecodingStrategy = .custom { map($0) }
        }
        switch dateDecodingStrategy {
        case .deferredToDate: decoder.dateDecodingStrategy = .deferredToDate
        case .secondsSince1970: decoder.dateDecodingStrategy = .secondsSince1970
        case .millisecondsSince1970: decoder.dateDecodingStrategy = .millisecondsSince1970
        case .iso8601: decoder.dateDecodingStrategy = .iso8601
        case .custom(let read): decoder.dateDecodingStrategy = .custom(read)
        }
        switch dataDecodingStrategy {
        case .deferredToData: decoder.dataDecodingStrategy = .deferredToData
        case .base64: decoder.dataDecodingStrategy = .base64
        case .custom(let read): decoder.dataDecodingStrategy = .custom(read)
        }
        if case .convertFromString(let positive, let negative, let nan) = nonConformingFloatDecodingStrategy {
            decoder.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: positive, negativeInfinity: negative, nan: nan)
        }
    }
}

/// A `CodingKey` made from a string or an index.
struct JanssonKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        self.stringValue = string
        self.intValue = nil
    }

    init(index: Int) {
        self.stringValue = "Index \(index)"
        self.intValue = index
    }

    init?(stringValue: String) { self.init(stringValue) }

    init?(intValue: Int) { self.init(index: intValue) }

    static let `super` = JanssonKey("super")
}
