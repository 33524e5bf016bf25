import CourierCore

/// A `Digest` challenge Courier can answer (RFC 7616 §3.3), and the answer
/// to it (§3.4): what ``ChallengeAuthenticator`` keeps per origin.
struct DigestChallenge: Sendable, Hashable {
    /// The hash, with or without `-sess` (§3.3: `MD5`, `SHA-256`, their
    /// `-sess` forms). `SHA-512-256` and unknown names are not answered.
    enum Algorithm: String, Sendable, CaseIterable {
        case md5 = "MD5"
        case md5Session = "MD5-sess"
        case sha256 = "SHA-256"
        case sha256Session = "SHA-256-sess"

        /// The stronger hash is preferred when a server offers several (§3.7).
        var strength: Int {
            switch self {
            case .md5, .md5Session: 1
            case .sha256, .sha256Session: 2
            }
        }

        var isSession: Bool { self == .md5Session || self == .sha256Session }

        /// The hash of `bytes`, in lowercase hexadecimal.
        func hash(_ bytes: some Collection<UInt8>) -> String {
            switch self {
            case .md5, .md5Session: MD5.hex(bytes)
            case .sha256, .sha256Session: SHA256.hex(bytes)
            }
        }

        /// The hash of `text`'s UTF-8.
        func hash(_ text: String) -> String { hash(Array(text.utf8)) }

        /// Hashes a body as it arrives, for `auth-int`.
        func hasher() -> BodyHasher {
            switch self {
            case .md5, .md5Session: .md5(MD5())
            case .sha256, .sha256Session: .sha256(SHA256())
            }
        }

        init?(named name: String?) {
            guard let name else {
                self = .md5  // RFC 2617: no algorithm means MD5
                return
            }
            guard let known = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() })
            else {
                return nil
            }
            self = known
        }
    }

    /// A running hash of a request body.
    enum BodyHasher {
        case md5(MD5)
        case sha256(SHA256)

        mutating func update(_ bytes: [UInt8]) {
            switch self {
            case .md5(var hash):
                hash.update(bytes)
                self = .md5(hash)
            case .sha256(var hash):
                hash.update(bytes)
                self = .sha256(hash)
            }
        }

        mutating func hex() -> String {
            switch self {
            case .md5(var hash): RequestKey.hex(hash.finalize())
            case .sha256(var hash): RequestKey.hex(hash.finalize())
            }
        }
    }

    /// The protection quality: `auth` covers the method and the URI,
    /// `auth-int` the body too; `none` is RFC 2069's form, for servers that
    /// offer no `qop`.
    enum Protection: String, Sendable {
        case auth
        case authInt = "auth-int"
        case none
    }

    let realm: String
    let nonce: String
    let opaque: String?
    let algorithm: Algorithm
    let protection: Protection
    /// The server asks for the user name hashed (§3.4.4).
    let userhash: Bool
    /// The server says its last nonce was stale, not the credentials wrong.
    let stale: Bool

    /// The challenge, when it is a `Digest` one Courier can answer: a realm,
    /// a nonce, a known algorithm, and `auth` or `auth-int` offered (or no
    /// `qop` at all). `auth` is chosen when both are offered; `auth-int`
    /// only when `bodyHashable` (the body can be read again).
    init?(_ challenge: AuthenticationChallenge, bodyHashable: Bool) {
        guard challenge.isScheme("Digest"), let realm = challenge.parameter("realm"),
            let nonce = challenge.parameter("nonce"),
            let algorithm = Algorithm(named: challenge.parameter("algorithm"))
        else { return nil }
        if let offered = challenge.parameter("qop") {
            let qops = offered.split(separator: ",").map { String($0).trimmingSpaces.lowercased() }
            if qops.contains("auth") {
                protection = .auth
            } else if qops.contains("auth-int"), bodyHashable {
                protection = .authInt
            } else {
                return nil
            }
        } else {
            // RFC 2069 has no -sess and no cnonce: only plain MD5 qualifies.
            guard algorithm == .md5 else { return nil }
            protection = .none
        }
        self.realm = realm
        self.nonce = nonce
        self.opaque = challenge.parameter("opaque")
        self.algorithm = algorithm
        self.userhash = challenge.parameter("userhash")?.lowercased() == "true"
        self.stale = challenge.parameter("stale")?.lowercased() == "true"
    }

    /// What an answer covers beside the challenge.
    struct Request {
        var method: String
        /// The request-target, as sent (path and query).
        var uri: String
        /// The body's hash with ``algorithm``, for `auth-int`.
        var bodyHash: String?
    }

    /// The `Authorization` value answering this challenge (§3.4).
    /// - Parameters:
    ///   - user: The user name, as the user typed it.
    ///   - password: The password.
    ///   - request: The method, URI and (for `auth-int`) the body's hash.
    ///   - count: The nonce count: 1 for the first use of this nonce.
    ///   - cnonce: The client nonce (random; fixed in tests).
    /// - Returns: `Digest username=…, …, response=…` for the `Authorization` field.
    func authorization(
        user: String, password: String, for request: Request, count: Int, cnonce: String
    ) -> String {
        let hash = { (text: String) in algorithm.hash(text) }
        var secret = hash("\(user):\(realm):\(password)")
        if algorithm.isSession { secret = hash("\(secret):\(nonce):\(cnonce)") }
        var scope = "\(request.method):\(request.uri)"
        if protection == .authInt { scope += ":" + (request.bodyHash ?? algorithm.hash([])) }
        let nc = Self.nonceCount(count)
        let response =
            protection == .none
            ? hash("\(secret):\(nonce):\(hash(scope))")
            : hash("\(secret):\(nonce):\(nc):\(cnonce):\(protection.rawValue):\(hash(scope))")
        var fields: [String] = []
        if userhash {
            fields.append("username=\(Self.quoted(hash("\(user):\(realm)")))")
        } else if user.utf8.allSatisfy({ $0 < 0x80 }) {
            fields.append("username=\(Self.quoted(user))")
        } else {
            // RFC 8187's value-chars: percent-encoding any byte beyond the unreserved is valid.
            fields.append("username*=UTF-8''\(PercentEncoding.escape(user))")
        }
        fields.append("realm=\(Self.quoted(realm))")
        fields.append("uri=\(Self.quoted(request.uri))")
        fields.append("algorithm=\(algorithm.rawValue)")
        fields.append("nonce=\(Self.quoted(nonce))")
        if protection != .none {
            fields.append("nc=\(nc)")
            fields.append("cnonce=\(Self.quoted(cnonce))")
            fields.append("qop=\(protection.rawValue)")
        }
        fields.append("response=\(Self.quoted(response))")
        if let opaque { fields.append("opaque=\(Self.quoted(opaque))") }
        if userhash { fields.append("userhash=true") }
        return "Digest " + fields.joined(separator: ", ")
    }

    /// Eight hexadecimal digits (§3.4: `nc`).
    static func nonceCount(_ count: Int) -> String {
        let digits = String(UInt32(truncatingIfNeeded: count), radix: 16)
        return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// A quoted string, `"` and `\` escaped.
    static func quoted(_ value: String) -> String {
        var result = "\""
        for character in value {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result + "\""
    }
}
