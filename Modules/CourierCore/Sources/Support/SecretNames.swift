/// The names whose values are secrets wherever Courier writes a URL for
/// people to read — an error's message, a log line, a curl command: one
/// list, so that an error never shows what a log line hides.
/// `CourierPlugins`' `Redaction.standard` starts from it.
package enum SecretNames {
    /// Query parameters named like tokens, keys, signatures and passwords,
    /// lowercased.
    package static let queryParameters: Set<String> = [
        "token", "access_token", "refresh_token", "id_token", "key", "api_key", "apikey", "signature",
        "sig", "password", "secret", "client_secret", "x-amz-signature", "x-amz-security-token",
    ]

    /// What a hidden value becomes.
    package static let mask = "***"

    /// `url` (absolute, or a reference as a `Location` gives it) with any
    /// user information and the values of secret query parameters masked;
    /// names and the rest of the URL stay, so a reader still sees the shape.
    package static func redacted(_ url: some StringProtocol) -> String {
        var text = String(url)
        // User information: between "//" and the first "@" of the authority.
        if let slashes = text.firstRange(of: "//") {
            let authorityEnd =
                text[slashes.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" }
                ?? text.endIndex
            if let at = text[slashes.upperBound..<authorityEnd].lastIndex(of: "@") {
                text.replaceSubrange(slashes.upperBound..<at, with: mask)
            }
        }
        guard let mark = text.firstIndex(of: "?") else { return text }
        let fragment = text[mark...].firstIndex(of: "#") ?? text.endIndex
        let query = text[text.index(after: mark)..<fragment]
        return String(text[...mark]) + maskedQuery(query, hidden: queryParameters, mask: mask)
            + String(text[fragment...])
    }

    /// `name=value&…` with the values of `hidden` names masked (names
    /// percent-decoded and compared without case, `hidden` lowercased).
    package static func maskedQuery(_ encoded: Substring, hidden: Set<String>, mask: String) -> String {
        encoded.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = String(pair[..<equals])
            let decoded = (name.percentDecoded(plusIsSpace: true) ?? name).lowercased()
            return hidden.contains(decoded) ? "\(name)=\(mask)" : String(pair)
        }.joined(separator: "&")
    }
}
