#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The request body an endpoint sends.
///
/// Query parameters are separate (``EndpointSpec/query``), so a body and a query
/// go together naturally. Parameters in `.form` and `.jsonParameters` pass
/// through parameter interceptors before they are encoded.
public struct Content: Sendable {
    enum Kind: Sendable {
        case none
        case form(Parameters)
        case jsonParameters(Parameters)
        case json(@Sendable () throws -> [UInt8])
        case raw([UInt8], contentType: String)
        case file(URL, contentType: String)
        case multipart(MultipartForm)
        case stream(RequestBody, contentType: String)
    }

    let kind: Kind

    /// Whether it is a multipart form, whose `Content-Type` carries the
    /// boundary and so wins over any other (``RequestBuilder``).
    var isMultipart: Bool {
        if case .multipart = kind { return true }
        return false
    }

    /// No body.
    public static let none = Content(kind: .none)

    /// An `application/x-www-form-urlencoded` body, encoded with the endpoint's
    /// ``ParameterEncoding``.
    public static func form(_ parameters: Parameters) -> Content { Content(kind: .form(parameters)) }

    /// A JSON object body from parameters.
    public static func json(_ parameters: Parameters) -> Content {
        Content(kind: .jsonParameters(parameters))
    }

    /// A JSON body from an `Encodable` value.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - makeEncoder: Makes the encoder (called once per encoding); the
    ///     default is a plain `JSONEncoder`.
    /// - Returns: JSON content, encoded when the request is built.
    public static func json<Value: Encodable & Sendable>(
        _ value: Value,
        encoder makeEncoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() }
    ) -> Content {
        Content(kind: .json({ Array(try makeEncoder().encode(value)) }))
    }

    /// Raw bytes with a content type.
    public static func raw(_ bytes: [UInt8], contentType: String) -> Content {
        Content(kind: .raw(bytes, contentType: contentType))
    }

    /// A file's bytes as the whole body, streamed from disk.
    public static func file(_ url: URL, contentType: String = "application/octet-stream") -> Content {
        Content(kind: .file(url, contentType: contentType))
    }

    /// A `multipart/form-data` body; file parts are streamed from disk.
    public static func multipart(_ form: MultipartForm) -> Content { Content(kind: .multipart(form)) }

    /// A body you built yourself, for example a one-shot stream.
    public static func body(_ body: RequestBody, contentType: String) -> Content {
        Content(kind: .stream(body, contentType: contentType))
    }

    /// The parameters of a `.form` or `.json(Parameters)` body, which parameter
    /// interceptors may change; `nil` for other bodies.
    public var parameters: Parameters? {
        get {
            switch kind {
            case .form(let parameters), .jsonParameters(let parameters): parameters
            default: nil
            }
        }
        set {
            guard let newValue else { return }
            switch kind {
            case .form: self = .form(newValue)
            case .jsonParameters: self = .json(newValue)
            default: break
            }
        }
    }

    /// A short name for logs: `none`, `form`, `json`, `raw`, `file`, `multipart` or `stream`.
    public var name: String {
        switch kind {
        case .none: "none"
        case .form: "form"
        case .jsonParameters, .json: "json"
        case .raw: "raw"
        case .file: "file"
        case .multipart: "multipart"
        case .stream: "stream"
        }
    }
}
