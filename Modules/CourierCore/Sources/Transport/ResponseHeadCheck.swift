import HTTPTypes

/// Checks every transport applies to a response head before its body is
/// trusted: the framing must be unambiguous and the head bounded.
///
/// Two different `Content-Length` values, or a `Content-Length` beside a
/// `Transfer-Encoding`, are the classic response-splitting and desync vector
/// (RFC 9110 §8.6, RFC 9112 §6.3: the latter "ought to be handled as an
/// error"): a client that picks one framing may read the next response out
/// of this one's body, so the response is refused instead.
public enum ResponseHeadCheck {
    /// The most bytes a response head (status line and fields) may take.
    public static let maxHeadBytes = 256 * 1024

    /// Throws ``TransportError/Code/protocolError`` when `fields` carry
    /// conflicting or malformed `Content-Length` values, a `Content-Length`
    /// beside a `Transfer-Encoding`, or add up to more than ``maxHeadBytes``.
    public static func validate(_ fields: HTTPFields) throws(TransportError) {
        var size = 0
        for field in fields { size += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        let length = try contentLength(fields[values: .contentLength])
        if length != nil, fields[.transferEncoding] != nil { throw lengthAndTransferEncoding }
        if size > maxHeadBytes {
            throw TransportError(.protocolError, "the response head exceeds \(maxHeadBytes) bytes")
        }
    }

    /// The error for a head that carries both `Content-Length` and `Transfer-Encoding`.
    public static let lengthAndTransferEncoding = TransportError(
        .protocolError, "the response has both Content-Length and Transfer-Encoding (ambiguous framing)")

    /// The body length the `Content-Length` values agree on, `nil` without one.
    /// Each value may be a list (`5, 5`) when every member is the same number
    /// (RFC 9110 §8.6); members are compared as numbers, so `05, 5` is 5.
    /// - Throws: ``TransportError/Code/protocolError`` for an empty or
    ///   malformed member (anything but digits inside optional spaces), a
    ///   number too large to hold, or members that disagree.
    public static func contentLength(_ values: some Sequence<String>) throws(TransportError) -> Int? {
        var length: Int?
        for text in values {
            for member in text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                let value = try number(member, in: text)
                if let length, length != value {
                    throw TransportError(
                        .protocolError, "conflicting Content-Length values \(length) and \(value)")
                }
                length = value
            }
        }
        return length
    }

    /// One list member: digits inside optional spaces and tabs.
    private static func number(_ member: Substring.UTF8View, in text: String) throws(TransportError)
        -> Int
    {
        let isSpace = { (byte: UInt8) in byte == 32 || byte == 9 }
        var digits = member.drop(while: isSpace)
        while let last = digits.last, isSpace(last) { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw TransportError(.protocolError, "invalid Content-Length \"\(text.prefix(100))\"")
        }
        var value = 0
        for digit in digits {
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int(digit - 48))
            guard !overflowTimes, !overflowSum else {
                throw TransportError(.protocolError, "Content-Length \"\(text.prefix(100))\" is too large")
            }
            value = sum
        }
        return value
    }
}
