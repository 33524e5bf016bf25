import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension CourierError: CustomStringConvertible, CustomDebugStringConvertible {
    /// The longest body excerpt a description includes.
    package static let bodySnippetLimit = 512

    /// At most 512 bytes of the response body, as text, with
    /// control characters escaped and the values of secret JSON and form
    /// fields masked first (``Redaction/standard``: a login's answer carries
    /// its token); `nil` without a body.
    public var bodySnippet: String? {
        guard let response, let bytes = response.body.bytes, !bytes.isEmpty else { return nil }
        let masked = Redaction.standard.masked(bytes, contentType: response.head.headerFields[.contentType])
        let head = masked.prefix(Self.bodySnippetLimit)
        var text = ""
        for scalar in String(decoding: head, as: UTF8.self).unicodeScalars {
            switch scalar {
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                text += "\\u{\(String(scalar.value, radix: 16))}"
            default: text.unicodeScalars.append(scalar)
            }
        }
        if masked.count > Self.bodySnippetLimit { text += "… (\(bytes.count) bytes)" }
        return text
    }

    /// A bounded label for metrics and logs: `stage.code`, never a body or a URL
    /// (the tracing plugin's span status).
    package var shortDescription: String { "\(stage).\(code)" }

    /// One readable paragraph: what, where, which request (method and path,
    /// never the query or headers, which may hold secrets), the status, the
    /// business code, the component that threw, the attempt and the underlying cause.
    public var description: String {
        var parts = ["\(code) error at \(stage): \(message)"]
        if let request {
            // The query is left out: it often carries tokens, and logs keep descriptions.
            let path = (request.path ?? "").split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
            parts.append("request: \(request.method) \(path)")
        }
        if let head = response?.head {
            parts.append("status: \(head.status.code)")
        }
        if let businessFailure {
            let msg = businessFailure.message.map { " \"\($0)\"" } ?? ""
            parts.append("business code: \(businessFailure.code)\(msg)")
        }
        if let thrownBy { parts.append("thrown by: \(thrownBy)") }
        if let retryStop, retryStop.detail != message { parts.append("not retried: \(retryStop.detail)") }
        if attempt > 0 { parts.append("attempt: \(attempt)") }
        if let cause = causeText { parts.append("cause: \(cause)") }
        return parts.joined(separator: "; ")
    }

    /// The underlying error, told once: a nested ``CourierError`` by its own
    /// first line (not its whole chain), nothing when the message already says it
    /// (a transport error's text, a `DecodingError` described with its path).
    private var causeText: String? {
        guard let underlying else { return nil }
        if underlying is DecodingError { return nil }
        let text =
            (underlying as? CourierError).map { "\($0.code) error at \($0.stage): \($0.message)" }
            ?? "\(underlying)"
        if message.contains(text) || text.contains(message) { return nil }
        return text
    }

    /// ``description`` plus a bounded excerpt of the response body.
    public var debugDescription: String {
        guard let bodySnippet else { return description }
        return description + "; body: \(bodySnippet)"
    }
}

/// `localizedDescription` is ``CourierError/description``, as in other Swift
/// libraries — not Foundation's "The operation could not be completed".
extension CourierError: LocalizedError {
    /// ``description``.
    public var errorDescription: String? { description }
}
