public import HTTPTypes

/// Which responses count as successful before the envelope and decoding.
///
/// One validation stage runs on every response, data or download alike.
/// The default accepts 200–299 and any content type.
public struct Validation: Sendable, Hashable {
    /// Acceptable status codes.
    public var statusCodes: Set<Int>
    /// Acceptable media types (`application/json`, `text/*`); `nil` accepts any.
    /// Parameters such as `charset` are ignored when comparing.
    public var contentTypes: [String]?

    /// Creates a validation.
    public init(statusCodes: some Sequence<Int> = 200..<300, contentTypes: [String]? = nil) {
        self.statusCodes = Set(statusCodes)
        self.contentTypes = contentTypes
    }

    /// 200–299, any content type.
    public static let successCodes = Validation()
    /// 200–399, any content type.
    public static let successAndRedirectCodes = Validation(statusCodes: 200..<400)
    /// Every status is acceptable.
    public static let anyStatus = Validation(statusCodes: 100..<600)

    /// This validation, also requiring one of the given media types.
    public func requiring(contentTypes: [String]) -> Validation {
        var copy = self
        copy.contentTypes = contentTypes
        return copy
    }

    /// Checks a response head; throws ``CourierError/Code/status`` or
    /// ``CourierError/Code/contentType``.
    public func validate(_ head: HTTPResponse) throws(CourierError) {
        guard statusCodes.contains(head.status.code) else {
            throw CourierError(
                .status, stage: .validation,
                message: "status \(head.status.code) is not acceptable")
        }
        guard let contentTypes else { return }
        let actual = head.headerFields[.contentType].map(Self.mediaType) ?? ""
        let matches = contentTypes.contains { expected in
            let wanted = Self.mediaType(expected)
            if wanted == "*/*" { return true }
            if wanted.hasSuffix("/*") { return actual.hasPrefix(wanted.dropLast()) }
            return actual == wanted
        }
        guard matches else {
            throw CourierError(
                .contentType, stage: .validation,
                message: "content type \(actual.isEmpty ? "(none)" : actual) is not one of "
                    + contentTypes.joined(separator: ", "))
        }
    }

    /// The media type of a `Content-Type` value, lowercased, without parameters.
    package static func mediaType(_ value: String) -> String {
        let base = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value
        return base.trimmingSpaces.lowercased()
    }
}
