/// A request as the server received it, for matching and for the journal.
public struct RecordedRequest: Sendable, Hashable {
    /// One header line as received: original casing, in order, duplicates kept.
    public struct HeaderLine: Sendable, Hashable, Encodable {
        /// The name as the client wrote it.
        public var name: String
        /// The value.
        public var value: String
    }

    /// The method, e.g. `GET`.
    public var method: String
    /// The request target as received: path and query, percent-encoded.
    public var uri: String {
        didSet { (path, rawQuery) = Self.split(uri) }
    }
    /// The HTTP version, e.g. `HTTP/1.1`.
    public var version: String
    /// The header lines in order.
    public var headers: [HeaderLine]
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a request.
    public init(
        method: String, uri: String, version: String = "HTTP/1.1", headers: [HeaderLine], body: [UInt8]
    ) {
        self.method = method
        self.uri = uri
        (path, rawQuery) = Self.split(uri)
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// The path, still percent-encoded. Split from ``uri`` once, when it is
    /// set: matching reads it for every stub.
    public private(set) var path: String

    /// The raw query string, without `?`.
    public private(set) var rawQuery: String?

    private static func split(_ uri: String) -> (path: String, query: String?) {
        guard let mark = uri.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (uri, nil) }
        return (String(uri[..<mark]), String(uri[uri.index(after: mark)...]))
    }

    /// Decoded query parameters in order (`+` is a space).
    public var query: [(name: String, value: String)] { FormDecoding.pairs(rawQuery ?? "") }

    /// The first value of a query parameter.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// The first value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers.first { HeaderName.equal($0.name, name) }?.value
    }

    /// Every value of a header, by case-insensitive name.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { HeaderName.equal($0.name, name) }.map(\.value)
    }

    /// The body as UTF-8 text, when it is valid UTF-8.
    public var bodyText: String? { String(validating: body, as: UTF8.self) }
}

/// `application/x-www-form-urlencoded` decoding.
enum FormDecoding {
    static func pairs(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// Percent-decodes, with `+` as a space; invalid escapes are kept as written.
    static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let high = hex(iterator[iterator.startIndex]),
                let low = hex(iterator[iterator.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - 48
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - 87
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - 55
        default: nil
        }
    }
}
