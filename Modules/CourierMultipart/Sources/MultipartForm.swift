public import CourierCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A `multipart/form-data` body: text fields, in-memory data, files, and
/// streams of unknown length.
///
/// File parts are never loaded: the body is a list of byte runs and file
/// references that the transport streams, and its length is known up front.
/// A part from an `AsyncSequence` of bytes (``append(stream:name:filename:contentType:)``)
/// makes the whole body a one-shot stream of unknown length:
/// AsyncHTTPClientTransport sends it chunked as it is read; CurlTransport
/// gathers it in memory and URLSessionTransport spools it first, each at
/// most `maxBodySize`. Such a form can be read once: a retry that must send it again
/// stops (``/CourierCore/RetryStopReason/bodyNotReplayable``). While the
/// client follows redirects (the default) the body is read whole first, up
/// to `maxBodySize`, so that a 307 or 308 can resend it; with redirects not
/// followed it reaches the transport as a stream.
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
        /// A one-shot stream (``/CourierCore/RequestBody``'s: a second read fails).
        case stream(RequestBody)
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

    /// The `Content-Type` header value, with the boundary (quoted when it
    /// holds characters a bare parameter value cannot, such as `:` or a space).
    public var contentType: String {
        let bare = boundary.utf8.allSatisfy { byte in
            Self.isLetterOrDigit(byte) || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
        return "multipart/form-data; boundary=" + (bare ? boundary : "\"\(boundary)\"")
    }

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

    /// Adds a part read from `chunks` while the form is sent, of a length not
    /// known in advance (a log being written, a generated export, a pipe).
    /// The form can then be sent once (see the type's documentation). Its
    /// content is not searched for the boundary: with the default random
    /// boundary a collision is not a practical concern.
    public mutating func append(
        stream chunks: some AsyncSequence<[UInt8], any Error> & Sendable, name: String,
        filename: String? = nil,
        contentType: String = "application/octet-stream"
    ) {
        parts.append(
            Part(
                name: name, filename: filename, contentType: contentType,
                source: .stream(RequestBody(length: nil, chunks: chunks))))
    }

    /// The body: each part's headers as bytes, its content as bytes or a file.
    ///
    /// In-memory content is searched for the boundary's delimiter: a part
    /// that contains it would end early at the server, so the form is refused
    /// instead. Files are not read to search them; with the default random
    /// boundary (24 random base-36 characters) a collision is not a practical
    /// concern, with a boundary of your own it is yours to rule out.
    /// - Throws: ``/CourierCore/CourierError/Code/invalidRequest`` for a missing file, a
    ///   boundary that is not 1–70 RFC 2046 characters, a boundary found in a
    ///   part's content, or a name, filename or content type with CR, LF or NUL.
    public func makeBody() throws(CourierError) -> RequestBody {
        try Self.checkBoundary(boundary)
        let delimiter = Array("\r\n--\(boundary)".utf8)
        var runs: [Run] = []
        var pending: [UInt8] = []
        for part in parts {
            if case .bytes(let bytes) = part.source, Self.contains(delimiter, in: bytes) {
                throw CourierError(
                    .invalidRequest, stage: .build,
                    message:
                        "multipart part \"\(part.name.prefix(100))\" contains the boundary; choose another boundary"
                )
            }
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
                if !pending.isEmpty { runs.append(.part(.bytes(pending))) }
                pending = []
                runs.append(.part(.file(url, length: length)))
            case .stream(let body):
                if !pending.isEmpty { runs.append(.part(.bytes(pending))) }
                pending = []
                runs.append(.stream(body))
            }
            pending += Array("\r\n".utf8)
        }
        pending += Array("--\(boundary)--\r\n".utf8)
        runs.append(.part(.bytes(pending)))
        var known: [RequestBody.Part] = []
        for run in runs {
            guard case .part(let part) = run else { return Self.streamed(runs) }
            known.append(part)
        }
        return RequestBody(parts: known)
    }

    /// A piece of the body: a part of known length, or a stream.
    enum Run: Sendable {
        case part(RequestBody.Part)
        case stream(RequestBody)
    }

    /// The runs as one stream of unknown length, pulled in order as the
    /// transport sends it: nothing is read ahead of the socket.
    private static func streamed(_ runs: [Run]) -> RequestBody {
        let reader = StreamedRuns(runs)
        return RequestBody(length: nil, chunks: AsyncThrowingStream(unfolding: { try await reader.next() }))
    }

    /// Quotes and backslashes in a quoted-string are escaped as `%22` and `%5C`,
    /// as browsers do.
    private static func quote(_ text: String) -> String {
        text.replacing("\\", with: "%5C").replacing("\"", with: "%22")
    }

    /// RFC 2046: 1–70 characters from letters, digits and `'()+_,-./:=?` and
    /// space, not ending in a space.
    private static func checkBoundary(_ boundary: String) throws(CourierError) {
        let allowed = Array("'()+_,-./:=? ".utf8)
        guard (1...70).contains(boundary.utf8.count), boundary.utf8.last != UInt8(ascii: " "),
            boundary.utf8.allSatisfy({ isLetterOrDigit($0) || allowed.contains($0) })
        else {
            throw CourierError(
                .invalidRequest, stage: .build,
                message: "multipart boundary must be 1–70 letters, digits or '()+_,-./:=? and spaces, "
                    + "not ending in a space (RFC 2046)")
        }
    }

    /// Whether the delimiter occurs in `content` as the part's reader sees it:
    /// after the blank line that ends the part's head.
    private static func contains(_ delimiter: [UInt8], in content: [UInt8]) -> Bool {
        content.starts(with: delimiter.dropFirst(2)) || content.firstRange(of: delimiter) != nil
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }

    private static func checkHeaderSafe(_ text: String, what: String) throws(CourierError) {
        if text.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
            throw CourierError(
                .invalidRequest, stage: .build, message: "multipart \(what) contains CR, LF or NUL")
        }
    }
}

extension Content {
    /// A `multipart/form-data` body; file parts are streamed from disk. Its
    /// `Content-Type` (with the boundary) wins over a node's or endpoint's.
    public static func multipart(_ form: MultipartForm) -> Content {
        .built(name: "multipart", framed: true) { () throws(CourierError) in
            (try form.makeBody(), form.contentType)
        }
    }
}

/// Reads a form's runs one after another, a chunk per ``next()``.
private actor StreamedRuns {
    private var runs: ArraySlice<MultipartForm.Run>
    private var current: (any AsyncIteratorProtocol<[UInt8], any Error>)?

    init(_ runs: [MultipartForm.Run]) { self.runs = runs[...] }

    /// The next chunk of the body, or `nil` after the last run.
    func next() async throws -> [UInt8]? {
        while true {
            if var iterator = current {
                let chunk = try await iterator.next(isolation: self)
                current = iterator
                if let chunk {
                    if chunk.isEmpty { continue }
                    return chunk
                }
                current = nil
            }
            guard let run = runs.popFirst() else { return nil }
            switch run {
            case .part(let part): current = RequestBody(parts: [part]).chunks().makeAsyncIterator()
            case .stream(let body): current = body.chunks().makeAsyncIterator()
            }
        }
    }
}
