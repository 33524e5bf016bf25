@_spi(Transport) import CourierCore
import HTTPTypes

/// A response head assembled from libcurl's header callback, one line at a
/// time, straight from the bytes: no string per line, no Foundation trimming,
/// common field names matched without building a name. A new status line
/// (after a 1xx) starts a new head. Checks ``ResponseHeadCheck``'s rules as
/// the lines arrive, so a bad head stops the transfer before its body.
struct CurlResponseHead {
    /// The status code of the latest status line, if one arrived.
    private(set) var status: Int?
    /// The reason phrase of the latest status line.
    private(set) var reason = ""
    /// The latest head's `Content-Length`, once it has one (an invalid one stops the transfer).
    private(set) var contentLength: Int?
    /// The fields of the latest head, in order.
    private(set) var fields = HTTPFields()
    /// Whether the latest head has a `Transfer-Encoding` field.
    private var hasTransferEncoding = false
    /// Bytes of every head so far, 1xx included.
    private var bytes = 0

    /// Takes one line (with its CRLF); returns why the transfer must stop, if it must.
    mutating func take(_ line: UnsafeRawBufferPointer) -> TransportError? {
        bytes += line.count
        guard bytes <= ResponseHeadCheck.maxHeadBytes else {
            return TransportError(
                .protocolError, "the response head exceeds \(ResponseHeadCheck.maxHeadBytes) bytes")
        }
        var end = line.count
        while end > 0, line[end - 1] == 13 || line[end - 1] == 10 { end -= 1 }
        let content = UnsafeRawBufferPointer(rebasing: line[0..<end])
        if content.starts(with: Self.httpPrefix) { return startHead(content) }
        guard !content.isEmpty, let colon = content.firstIndex(of: UInt8(ascii: ":")),
            let name = Self.name(UnsafeRawBufferPointer(rebasing: content[..<colon]))
        else { return nil }
        var start = colon + 1
        var stop = content.count
        while start < stop, content[start] == 32 || content[start] == 9 { start += 1 }
        while stop > start, content[stop - 1] == 32 || content[stop - 1] == 9 { stop -= 1 }
        let valueBytes = UnsafeRawBufferPointer(rebasing: content[start..<stop])
        if name == .contentLength { return takeContentLength(valueBytes) }
        if name == .transferEncoding {
            hasTransferEncoding = true
            if contentLength != nil { return ResponseHeadCheck.lengthAndTransferEncoding }
        }
        fields.append(HTTPField(name: name, value: String(decoding: valueBytes, as: UTF8.self)))
        return nil
    }

    private static let httpPrefix = Array("HTTP/".utf8)

    /// `HTTP/1.1 200 OK`, `HTTP/2 200`: the second token is the status.
    private mutating func startHead(_ line: UnsafeRawBufferPointer) -> TransportError? {
        fields = HTTPFields()
        fields.reserveCapacity(16)
        contentLength = nil
        hasTransferEncoding = false
        guard let firstSpace = line.firstIndex(of: 32) else { return invalid(line) }
        let codeStart = firstSpace + 1
        var codeEnd = codeStart
        var code = 0
        while codeEnd < line.count, line[codeEnd] >= 48, line[codeEnd] <= 57, codeEnd - codeStart < 3 {
            code = code * 10 + Int(line[codeEnd] - 48)
            codeEnd += 1
        }
        guard codeEnd - codeStart == 3, codeEnd == line.count || line[codeEnd] == 32, code >= 100 else {
            return invalid(line)
        }
        status = code
        reason = codeEnd < line.count ? String(decoding: line[(codeEnd + 1)...], as: UTF8.self) : ""
        return nil
    }

    /// One `Content-Length` field, checked with any earlier ones (``ResponseHeadCheck``)
    /// straight from its bytes.
    private mutating func takeContentLength(_ value: UnsafeRawBufferPointer) -> TransportError? {
        if hasTransferEncoding { return ResponseHeadCheck.lengthAndTransferEncoding }
        fields.append(HTTPField(name: .contentLength, value: String(decoding: value, as: UTF8.self)))
        do {
            contentLength = try ResponseHeadCheck.contentLength(
                fieldValue: value, agreeingWith: contentLength)
            return nil
        } catch {
            return error
        }
    }

    private func invalid(_ line: UnsafeRawBufferPointer) -> TransportError {
        TransportError(
            .protocolError, "invalid status line: \(String(decoding: line.prefix(100), as: UTF8.self))")
    }

    /// Names most servers send, spelled as they usually are; anything else is
    /// parsed (and validated) by HTTPTypes.
    private static let common: [([UInt8], HTTPField.Name)] = {
        let names: [(String, HTTPField.Name)] = [
            ("Content-Type", .contentType), ("Content-Length", .contentLength), ("Date", .date),
            ("Server", .server), ("Connection", .connection), ("ETag", .eTag),
            ("Last-Modified", .lastModified), ("Accept-Ranges", .acceptRanges),
            ("Cache-Control", .cacheControl),
            ("Vary", .vary), ("Transfer-Encoding", .transferEncoding), ("Content-Encoding", .contentEncoding),
            ("content-type", .contentType), ("content-length", .contentLength), ("date", .date),
            ("server", .server),
        ]
        return names.map { (Array($0.0.utf8), $0.1) }
    }()

    private static func name(_ bytes: UnsafeRawBufferPointer) -> HTTPField.Name? {
        for (spelling, name) in common
        where spelling.count == bytes.count && spelling.withUnsafeBytes({ $0.elementsEqual(bytes) }) {
            return name
        }
        return HTTPField.Name(String(decoding: bytes, as: UTF8.self))
    }
}
