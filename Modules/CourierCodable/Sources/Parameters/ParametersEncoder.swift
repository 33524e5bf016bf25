public import CourierCore
public import Foundation

/// Encodes an `Encodable` value into ``/CourierCore/Parameters`` — the
/// query or the form body of an endpoint — directly, not through JSON
/// (Alamofire's `URLEncodedFormEncoder`, ACINetworking's parameters from a
/// model).
///
/// The value must encode as an object (a struct or a class with keyed
/// fields, or a dictionary keyed by strings). Its fields keep their order;
/// nested objects and arrays stay nested, so the endpoint's
/// ``/CourierCore/ParameterEncoding`` writes them — brackets or repeated
/// keys for arrays, `1`/`0` or `true`/`false` for booleans, and what a
/// null becomes are that encoding's styles, set in one place for every
/// endpoint, not here. This encoder decides what only it can see: how
/// keys are spelled, and how dates and data become text.
///
/// ```swift
/// struct Search: Encodable, Sendable {
///     let query: String
///     let pageSize: Int
///     let since: Date?
/// }
/// let encoder = ParametersEncoder(keys: .convertToSnakeCase, dates: .iso8601)
/// let search = try Endpoint<RawResponse>(.get("search"), on: api)
///     .adding(queryFrom: Search(query: "swift", pageSize: 20, since: nil), encoder: encoder)
/// // GET /search?query=swift&page_size=20   (a nil optional is left out)
/// ```
public struct ParametersEncoder: Sendable {
    /// How a field's name becomes a parameter's key.
    public enum KeyEncoding: Sendable {
        /// The name as it is.
        case useDefaultKeys
        /// `pageSize` → `page_size`.
        case convertToSnakeCase
        /// `pageSize` → `page-size`.
        case convertToKebabCase
        /// `pageSize` → `PageSize`.
        case capitalized
        /// `pageSize` → `PAGESIZE`.
        case uppercased
        /// `pageSize` → `pagesize`.
        case lowercased
        /// A function of the name.
        case custom(@Sendable (String) -> String)
    }

    /// How a `Date` becomes a parameter.
    public enum DateEncoding: Sendable {
        /// Whatever `Date`'s own `Encodable` writes: seconds since 2001-01-01.
        case deferredToDate
        /// Seconds since 1970-01-01, a number.
        case secondsSince1970
        /// Milliseconds since 1970-01-01, a whole number.
        case millisecondsSince1970
        /// ISO 8601 with the time zone, `2026-12-06T21:00:00Z`.
        case iso8601
        /// A function of the date.
        case custom(@Sendable (Date) throws -> String)
    }

    /// How `Data` becomes a parameter.
    public enum DataEncoding: Sendable {
        /// Base64 text (the default).
        case base64
        /// Whatever `Data`'s own `Encodable` writes: an array of bytes.
        case deferredToData
        /// A function of the bytes.
        case custom(@Sendable (Data) throws -> String)
    }

    /// What an explicit `encodeNil` writes. An optional left `nil` by
    /// synthesised `Encodable` is never written at all (its key is left out).
    public enum NilEncoding: Sendable {
        /// A null parameter: the endpoint's ``/CourierCore/ParameterEncoding/NullStyle``
        /// decides (left out, or the key with an empty value).
        case null
        /// This text, `"null"` say.
        case text(String)
    }

    /// How keys are spelled; as written by default.
    public var keys: KeyEncoding
    /// How dates are written; ISO 8601 by default (what a server reading a
    /// query most often expects — `Date`'s own encoding is a number of
    /// seconds since 2001).
    public var dates: DateEncoding
    /// How data is written; base64 by default.
    public var data: DataEncoding
    /// What an explicit null writes; a null parameter by default.
    public var nils: NilEncoding

    /// An encoder with these strategies.
    public init(
        keys: KeyEncoding = .useDefaultKeys, dates: DateEncoding = .iso8601, data: DataEncoding = .base64,
        nils: NilEncoding = .null
    ) {
        self.keys = keys
        self.dates = dates
        self.data = data
        self.nils = nils
    }

    /// The parameters `value` encodes to, in its fields' order.
    /// - Throws: ``/CourierCore/CourierError/Code/invalidRequest`` when the
    ///   value is not an object, a number is not finite, a strategy throws,
    ///   or the value's own `encode(to:)` throws (the error is underneath).
    public func encode(_ value: some Encodable) throws(CourierError) -> Parameters {
        let root = ParameterNode()
        do {
            try ParameterNodeEncoder(node: root, options: self, codingPath: []).encode(value)
        } catch let error as CourierError {
            throw error
        } catch {
            throw CourierError(
                .invalidRequest, stage: .build,
                message: "\(type(of: value)) could not be encoded as parameters: \(error)", underlying: error)
        }
        guard case .object(let parameters)? = root.resolved() else {
            throw CourierError(
                .invalidRequest, stage: .build,
                message:
                    "\(type(of: value)) does not encode as an object of named fields, so it has no parameter names"
            )
        }
        return parameters
    }
}

extension Parameters {
    /// The parameters `value` encodes to (``ParametersEncoder``).
    /// - Throws: ``/CourierCore/CourierError/Code/invalidRequest`` (see ``ParametersEncoder/encode(_:)``).
    public init(encoding value: some Encodable, with encoder: ParametersEncoder = ParametersEncoder())
        throws(CourierError)
    {
        self = try encoder.encode(value)
    }
}

extension Content {
    /// An `application/x-www-form-urlencoded` body from an `Encodable`
    /// value (`from:`, so that a dictionary literal still reads as
    /// ``/CourierCore/Parameters``): its fields, by ``ParametersEncoder``, written by the
    /// endpoint's ``/CourierCore/ParameterEncoding`` — and, like any form's
    /// parameters, seen by parameter interceptors first.
    /// - Throws: ``/CourierCore/CourierError/Code/invalidRequest`` (see ``ParametersEncoder/encode(_:)``).
    public static func form(from value: some Encodable, encoder: ParametersEncoder = ParametersEncoder())
        throws(CourierError) -> Content
    {
        .form(try encoder.encode(value))
    }
}

extension Endpoint {
    /// A copy with the fields of an `Encodable` value added to its query
    /// (they win on equal keys), by ``ParametersEncoder``. (`queryFrom:`, so
    /// that `adding(query: ["page": 1])` still means parameters.)
    /// - Throws: ``/CourierCore/CourierError/Code/invalidRequest`` (see ``ParametersEncoder/encode(_:)``).
    public func adding(queryFrom value: some Encodable, encoder: ParametersEncoder = ParametersEncoder())
        throws(CourierError) -> Endpoint
    {
        adding(query: try encoder.encode(value))
    }
}
