package import HTTPTypes

/// The checks a request head passes before any transport sends it: run once
/// per attempt by the pipeline, on the head as it leaves the last
/// interceptor and plugin, and by Courier wherever it turns a string of yours
/// into a field value.
///
/// swift-http-types makes every `HTTPField` value legal as the field is made:
/// control bytes (0x00–0x1F but tab, and 0x7F) become spaces. That closes
/// header injection, but it changes what you meant to send, silently. Where
/// Courier makes a field from a string (content types, the bearer token) it
/// refuses such a string instead, with ``CourierError/Code/invalidHeader``
/// naming the field and never echoing the value (``checkedValue(_:for:)``,
/// for Courier's modules; an app's own interceptor that sets a field from
/// untrusted input gets swift-http-types' replacement, or checks the string
/// itself). The authority (the
/// `Host`) and the path are checked on every attempt: an interceptor that
/// sets either with a space or a control byte is refused before sending.
package enum RequestHeadCheck {
    /// Returns `value` when it is a legal field value as written.
    /// - Throws: ``CourierError/Code/invalidHeader``, naming `name`, when it
    ///   holds a control byte (other than tab) or DEL.
    package static func checkedValue(_ value: String, for name: HTTPField.Name) throws(CourierError) -> String
    {
        guard value.utf8.allSatisfy({ ($0 >= 0x20 && $0 != 0x7F) || $0 == 0x09 }) else {
            throw CourierError(
                .invalidHeader, stage: .build,
                message: "the value for header \(name) contains a control character; it was not sent")
        }
        return value
    }

    /// Checks the head's authority and path for bytes no request line may carry.
    /// - Throws: ``CourierError/Code/invalidHeader`` for the authority (`Host`),
    ///   the path, or a `Proxy-Authorization` field.
    ///
    /// A head carrying `Proxy-Authorization` is refused too: that field is a
    /// proxy's credential, and a request's own fields reach the origin (in a
    /// `CONNECT` tunnel, only the origin). A proxy's credentials are given
    /// with the proxy (`Proxy.Credentials` in `CourierProxies`), which each
    /// transport sends to the proxy alone.
    static func check(_ head: HTTPRequest) throws(CourierError) {
        if head.headerFields[CredentialFields.proxyOnly] != nil {
            throw CourierError(
                .invalidHeader, stage: .interception,
                message:
                    "the request carries Proxy-Authorization, a proxy's credential that Courier never sends "
                    + "to an origin; give it as the proxy's Proxy.Credentials instead. It was not sent")
        }
        if let authority = head.authority, !authority.utf8.allSatisfy(isAuthorityByte) {
            throw CourierError(
                .invalidHeader, stage: .interception,
                message:
                    "the request's authority (Host) contains a space or a control character; it was not sent",
                request: nil)
        }
        if let path = head.path, path.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            throw CourierError(
                .invalidHeader, stage: .interception,
                message: "the request's path contains a space or a control character; it was not sent")
        }
    }

    /// Whether `host` (without a port) can be sent as it is: a name of ASCII
    /// letters, digits, `-`, `.`, `_` and `~`, or an IPv6 literal (hex digits,
    /// `:` and `.`, with or without brackets).
    ///
    /// Base URLs and redirect targets are held to this. Percent-escapes are
    /// refused (a URL parser decodes them into the host: `%0D%0A` becomes a
    /// line break), and so are non-ASCII names: an internationalised name must
    /// be given in its ASCII (`xn--`) form, as DNS knows it.
    static func isHostName(_ host: some StringProtocol) -> Bool {
        var bytes = Substring(host).utf8[...]
        let bracketed = bytes.first == UInt8(ascii: "[")
        if bracketed {
            guard bytes.count > 2, bytes.last == UInt8(ascii: "]") else { return false }
            bytes = bytes.dropFirst().dropLast()
        }
        if bracketed || bytes.contains(UInt8(ascii: ":")) {
            return bytes.contains(UInt8(ascii: ":"))
                && bytes.allSatisfy { $0.isHexDigit || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
        }
        return !bytes.isEmpty
            && bytes.allSatisfy {
                $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
                    || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "~")
            }
    }

    /// RFC 3986 host and port bytes: unreserved, sub-delims, `%`, `:`, `[`, `]`, `@`.
    private static func isAuthorityByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("-._~!$&'()*+,;=%:[]@".utf8).contains(byte)
        }
    }
}

extension UInt8 {
    /// `0–9`, `a–f`, `A–F`.
    fileprivate var isHexDigit: Bool {
        (48...57).contains(self) || (65...70).contains(self) || (97...102).contains(self)
    }

    /// `0–9`, `a–z`, `A–Z`.
    fileprivate var isASCIILetterOrDigit: Bool {
        (48...57).contains(self) || (65...90).contains(self) || (97...122).contains(self)
    }
}
