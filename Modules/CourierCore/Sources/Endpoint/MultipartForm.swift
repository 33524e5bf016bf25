#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A `multipart/form-data` body: text fields, in-memory data and files.
///
/// File parts are never loaded: the body is a list of byte runs and file
/// references that the transport streams, and its length is known up front.
///
/// ```swift
/// var form = MultipartForm()
/// form.append(field: "title", value: "Holiday")
/// form.append(file: photoURL, name: "photo", filename: "beach.jpg", contentType: "image/jpeg")
/// Endpoint<Upload>(.post("photos"), on: .api, content: .multipart(form))
/// ```
public struct MultipartForm: Sendable {
    enum Source: Sendable {
        case bytes([UInt8])
        case file(URL)
    }

    struct Part: Sendable {
        var name: String
        var filename: String?
        var contentType: String?
        var source: Source
    }

    /// The boundary between parts.
    public let boundary: String
    private(set) var parts: [Part] = []

    /// Creates an empty form; the boundary is random unless you pass one.
    public init(boundary: String? = nil) {
        self.boundary =
            boundary ?? "courier-" + (0..<24).map { _ in String(Int.random(in: 0..<36), radix: 36) }.joined()
    }

    /// The `Content-Type` header value, with the boundary.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// Adds a text field.
    public mutating func append(field name: String, value: String) {
        parts.append(Part(name: name, filename: nil, contentType: nil, source: .bytes(Array(value.utf8))))
    }

    /// Adds bytes, optionally as a file with a name and a content type.
    public mutating func append(
        data: [UInt8], name: String, filename: String? = nil, contentType: String? = nil
    ) {
        parts.append(Part(name: name, filename: filename, contentType: contentType, source: .bytes(data)))
    }

    /// Adds a file, streamed from disk when sent; `filename` defaults to the
    /// file's last path component.
    public mutating func append(
        file url: URL, name: String, filename: String? = nil, contentType: String = "application/octet-stream"
    ) {
        parts.append(
            Part(
                name: name, filename: filename ?? url.lastPathComponent, contentType: contentType,
                source: .file(url)))
    }

    /// The body: each part's headers as bytes, its content as bytes or a file.
    /// - Throws: ``CourierError/Code/invalidRequest`` for a missing file, or a
    ///   name, filename, content type or boundary that would break the framing.
    public func makeBody() throws(CourierError) -> RequestBody {
        try Self.checkHeaderSafe(boundary, what: "boundary")
        if boundary.isEmpty || boundary.utf8.count > 70 {
            throw CourierError(
                .invalidRequest, stage: .build, message: "multipart boundary must be 1–70 bytes")
        }
        var runs: [RequestBody.Part] = []
        var pending: [UInt8] = []
        for part in parts {
            try Self.checkHeaderSafe(part.name, what: "part name")
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quote(part.name))\""
            if let filename = part.filename {
                try Self.checkHeaderSafe(filename, what: "filename")
                head += "; filename=\"\(Self.quote(filename))\""
            }
            head += "\r\n"
            if let contentType = part.contentType {
                try Self.checkHeaderSafe(contentType, what: "content type")
                head += "Content-Type: \(contentType)\r\n"
            }
            head += "\r\n"
            pending += Array(head.utf8)
            switch part.source {
            case .bytes(let bytes):
                pending += bytes
            case .file(let url):
                let length = try FileFacts.size(of: url)
                if !pending.isEmpty { runs.append(.bytes(pending)) }
                pending = []
                runs.append(.file(url, length: length))
            }
            pending += Array("\r\n".utf8)
        }
        pending += Array("--\(boundary)--\r\n".utf8)
        runs.append(.bytes(pending))
        return RequestBody(parts: runs)
    }

    /// Quotes and backslashes in a quoted-string are escaped as `%22` and `%5C`,
    /// as browsers do.
    private static func quote(_ text: String) -> String {
        text.replacing("\\", with: "%5C").replacing("\"", with: "%22")
    }

    private static func checkHeaderSafe(_ text: String, what: String) throws(CourierError) {
        if text.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
            throw CourierError(
                .invalidRequest, stage: .build, message: "multipart \(what) contains CR, LF or NUL")
        }
    }
}
