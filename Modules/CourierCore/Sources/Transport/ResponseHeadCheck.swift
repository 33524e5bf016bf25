public import HTTPTypes

/// Checks every transport applies to a response head before its body is
/// trusted: the framing must be unambiguous and the head bounded.
///
/// Two different `Content-Length` values, or a `Content-Length` beside a
/// `Transfer-Encoding`, are the classic response-splitting and desync vector
/// (RFC 9110 §8.6, RFC 9112 §6.3: the latter "ought to be handled as an
/// error"): a client that picks one framing may read the next response out
/// of this one's body, so the response is refused instead.
@_spi(Transport) public enum ResponseHeadCheck {
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
        for var text in values {
            let agreed = text.withUTF8 { bytes in
                Result { () throws(TransportError) in
                    try contentLength(fieldValue: UnsafeRawBufferPointer(bytes), agreeingWith: length)
                }
            }
            length = try agreed.get()
        }
        return length
    }

    /// The length one `Content-Length` field value states, checked against the
    /// length the head's earlier `Content-Length` fields agreed on: for
    /// transports that read a head field by field, straight from its bytes
    /// (no string per value, no list built), with the rules of
    /// ``contentLength(_:)``.
    /// - Parameters:
    ///   - bytes: The field's value, without the name; spaces around members are allowed.
    ///   - earlier: The length earlier fields of the same head gave, if any.
    /// - Returns: The length every member of this value (and `earlier`) agrees on.
    /// - Throws: ``TransportError/Code/protocolError`` as ``contentLength(_:)`` does.
    public static func contentLength(fieldValue bytes: UnsafeRawBufferPointer, agreeingWith earlier: Int?)
        throws(TransportError) -> Int
    {
        var agreed = earlier
        var memberStart = 0
        while true {
            let memberEnd =
                (memberStart..<bytes.count).first { bytes[$0] == UInt8(ascii: ",") } ?? bytes.count
            let value = try number(bytes, from: memberStart, to: memberEnd)
            if let agreed, agreed != value {
                throw TransportError(
                    .protocolError, "conflicting Content-Length values \(agreed) and \(value)")
            }
            guard memberEnd < bytes.count else { return value }
            agreed = value
            memberStart = memberEnd + 1
        }
    }

    /// One list member, `bytes[start..<end]`: digits inside optional spaces and tabs.
    private static func number(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int)
        throws(TransportError) -> Int
    {
        func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 }
        var first = start
        var last = end
        while first < last, isSpace(bytes[first]) { first += 1 }
        while last > first, isSpace(bytes[last - 1]) { last -= 1 }
        guard first < last else { throw invalidLength(bytes) }
        var value = 0
        for index in first..<last {
            let byte = bytes[index]
            guard byte >= 48, byte <= 57 else { throw invalidLength(bytes) }
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int(byte - 48))
            guard !overflowTimes, !overflowSum else {
                throw TransportError(.protocolError, "Content-Length \"\(quoted(bytes))\" is too large")
            }
            value = sum
        }
        return value
    }

    private static func invalidLength(_ bytes: UnsafeRawBufferPointer) -> TransportError {
        TransportError(.protocolError, "invalid Content-Length \"\(quoted(bytes))\"")
    }

    /// The start of a field value, for an error message.
    private static func quoted(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes.prefix(100), as: UTF8.self)
    }
}
