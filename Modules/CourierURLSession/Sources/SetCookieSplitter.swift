/// Takes apart `Set-Cookie` fields that FoundationNetworking joined into one
/// comma-separated value. A comma is not a safe separator there: an
/// `Expires` date holds one (`Wed, 21 Oct 2026 …`), and some servers put
/// commas in values. A piece starts a new cookie only when, up to its first
/// `;`, it reads `name=value` with a token for a name and no date in front
/// of it — otherwise it belongs to the cookie before.
enum SetCookieSplitter {
    static func split(_ joined: String) -> [String] {
        var cookies: [String] = []
        for piece in joined.split(separator: ",", omittingEmptySubsequences: false) {
            if let last = cookies.last, !startsACookie(piece) {
                cookies[cookies.count - 1] = last + "," + piece
            } else {
                cookies.append(String(piece))
            }
        }
        return cookies.map { String($0.drop { $0 == " " || $0 == "\t" }) }
    }

    /// Whether `piece` begins with `name=`: a token (RFC 9110 `tchar`s) and an equals sign.
    private static func startsACookie(_ piece: Substring) -> Bool {
        let head = piece.drop { $0 == " " || $0 == "\t" }
        guard let equals = head.firstIndex(of: "="), equals > head.startIndex else { return false }
        let name = head[..<equals]
        if let semicolon = head.firstIndex(of: ";"), semicolon < equals { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.value > 0x20 && scalar.value < 0x7F
                && !"()<>@,;:\\\"/[]?={} ".unicodeScalars.contains(scalar)
        }
    }
}
