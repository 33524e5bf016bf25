/// One fuzzer input cut into the pieces a harness needs.
///
/// The byte 0xFF never occurs in UTF-8, so it separates text fields: the
/// fuzzer learns the separator from the seed corpus, and every field can
/// still hold any valid or invalid UTF-8 it likes.
public struct FuzzInput {
    /// The fields, in order; missing fields read as empty.
    public let fields: [[UInt8]]

    /// Splits `bytes` at every 0xFF.
    public init(_ bytes: [UInt8]) {
        fields = bytes.split(separator: 0xFF, omittingEmptySubsequences: false).map(Array.init)
    }

    /// The bytes of field `index`, empty when the input has fewer fields.
    public func bytes(_ index: Int) -> [UInt8] {
        index < fields.count ? fields[index] : []
    }

    /// Field `index` as text (invalid UTF-8 becomes U+FFFD, as it would for
    /// any string an app builds from bytes).
    public func text(_ index: Int) -> String {
        String(decoding: bytes(index), as: UTF8.self)
    }

    /// The first byte of field `index`, or 0.
    public func byte(_ index: Int) -> UInt8 {
        bytes(index).first ?? 0
    }
}

/// Stops the fuzzer with a finding: the message and the input's fields,
/// printed so the crash file can be read without a hex dump.
public func finding(_ message: String, _ input: FuzzInput) -> Never {
    let fields = input.fields.enumerated().map {
        "  field \($0.offset): \(String(reflecting: String(decoding: $0.element, as: UTF8.self)))"
    }
    fatalError(([message] + fields).joined(separator: "\n"))
}

/// Percent-decodes `text` (RFC 3986), `nil` for a malformed escape.
public func percentDecoded(_ text: Substring) -> [UInt8]? {
    var out: [UInt8] = []
    var bytes = Array(text.utf8)[...]
    while let byte = bytes.popFirst() {
        guard byte == UInt8(ascii: "%") else {
            out.append(byte)
            continue
        }
        guard bytes.count >= 2, let high = hexValue(bytes.removeFirst()),
            let low = hexValue(bytes.removeFirst())
        else { return nil }
        out.append(high << 4 | low)
    }
    return out
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - 48
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - 55
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - 87
    default: nil
    }
}

/// Whether `text` could go into a request head as an authority or a path
/// unchanged: no space, no control byte, nothing outside ASCII.
public func isHeadSafe(_ text: String) -> Bool {
    text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
}

/// RFC 9110 `token`: what a header field name may be.
public func isHTTPToken(_ name: String) -> Bool {
    !name.isEmpty
        && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
}

/// A finding unless every header can be written as it is: names that are
/// RFC 9110 tokens, values without CR, LF or NUL. `owner` names whose
/// headers they are, for the message.
public func expectWritableHeaders(
    _ headers: [(name: String, value: String)], of owner: String, _ input: FuzzInput
) {
    for (name, value) in headers {
        if !isHTTPToken(name) { finding("\(owner) has header name \(String(reflecting: name))", input) }
        if value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
            finding("\(owner) has a CR, LF or NUL in header \(name)", input)
        }
    }
}
