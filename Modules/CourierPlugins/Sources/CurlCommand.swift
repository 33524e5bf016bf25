public import CourierCore
public import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A request as a `curl` command line, to paste into a terminal: method,
/// URL, header fields and body, each shell-quoted, with everything
/// ``/CourierCore/Redaction`` hides masked (so the command is safe to log, and to run
/// once the masked values are filled in).
///
/// ```swift
/// print(CurlCommand(request.head, body: request.body))
/// // curl -X POST 'https://api.example.com/v1/login?token=***' -H 'Authorization: ***' \
/// //   -H 'Content-Type: application/json' --data-binary '{"user":"ada","password":"***"}'
/// ```
public struct CurlCommand: Sendable, CustomStringConvertible {
    /// The command.
    public let description: String

    /// Renders `request`.
    /// - Parameters:
    ///   - request: The head.
    ///   - body: The body; a body in memory is shown (redacted, at most
    ///     `bodyLimit` bytes), one file is passed as `@path`, anything else is
    ///     described in a comment.
    ///   - redaction: What to mask.
    ///   - bodyLimit: The most body bytes shown.
    public init(
        _ request: HTTPRequest, body: RequestBody? = nil, redaction: Redaction = .standard,
        bodyLimit: Int = 64 << 10
    ) {
        var words = ["curl"]
        switch request.method {
        case .get: break
        case .head: words.append("--head")
        default: words += ["-X", request.method.rawValue]
        }
        words.append(Self.quoted(redaction.url(request)))
        for line in redaction.lines(request.headerFields) { words += ["-H", Self.quoted(line)] }
        if let body {
            words += Self.body(body, request.headerFields[.contentType], redaction, bodyLimit)
        }
        description = words.joined(separator: " ")
    }

    private static func body(
        _ body: RequestBody, _ contentType: String?, _ redaction: Redaction, _ limit: Int
    ) -> [String] {
        guard let parts = body.parts else { return ["# a streamed body, not shown"] }
        if parts.count == 1, case .file(let url, _) = parts[0] {
            return ["--data-binary", quoted("@" + url.path)]
        }
        var bytes: [UInt8] = []
        for part in parts {
            guard case .bytes(let chunk) = part else {
                return [
                    "# a body of \(body.length.map { "\($0) bytes" } ?? "unknown length") with files, not shown"
                ]
            }
            bytes += chunk
        }
        if bytes.isEmpty { return [] }
        return ["--data-binary", quoted(redaction.body(bytes, contentType: contentType, limit: limit))]
    }

    /// `text` in single quotes, each quote in it written as `'\''`.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingQuotes() + "'"
    }
}

extension String {
    fileprivate func replacingQuotes() -> String {
        split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
    }
}
