#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// Parses the `Retry-After` header (RFC 9110 §10.2.3): delta-seconds or an HTTP-date.
package enum RetryAfter {
    /// The delay the header asks for, relative to `now`; `nil` when the value
    /// is neither a non-negative integer nor an HTTP date. A date in the past
    /// gives zero.
    package static func delay(from value: String, now: Date) -> Duration? {
        let text = value.trimmingSpaces
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            // Cap absurd values instead of overflowing: a day is more than any policy waits.
            guard let seconds = Int(text.prefix(9)) else { return nil }
            return .seconds(text.count > 9 ? 999_999_999 : seconds)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds <= 0 ? .zero : .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
