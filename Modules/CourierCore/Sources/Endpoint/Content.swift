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
        case stream(RequestBody, contentType: String)
        /// A body another module builds when the request is (a multipart
        /// form: CourierMultipart), named for logs.
        case built(
            name: String, framed: Bool, identity: BodyIdentity,
            make: @Sendable () throws(CourierError) -> (RequestBody, String))
    }

    let kind: Kind

    /// A body built when the request is, by `make` (its bytes and content
    /// type), called `name` in logs. A `framed` body's content type carries
    /// what the body is cut by (a multipart boundary) and so wins over any
    /// other (``RequestBuilder``). Package-level: a module adds a public
    /// modifier of its own in front (`Content.multipart(_:)`).
    package static func built(
        name: String, framed: Bool,
        _ make: @escaping @Sendable () throws(CourierError) -> (RequestBody, String)
    ) -> Content {
        Content(kind: .built(name: name, framed: framed, identity: BodyIdentity(), make: make))
    }

    /// Whether its `Content-Type` wins over any other (a multipart form's
    /// boundary, ``built(name:framed:_:)``).
    var isFramed: Bool {
        if case .built(_, true, _, _) = kind { return true }
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

    /// A short name for logs: `none`, `form`, `json`, `raw`, `file`, `stream`,
    /// or the name of a body another module builds (`multipart`).
    public var name: String {
        switch kind {
        case .none: "none"
        case .form: "form"
        case .jsonParameters, .json: "json"
        case .raw: "raw"
        case .file: "file"
        case .stream: "stream"
        case .built(let name, _, _, _): name
        }
    }
}
