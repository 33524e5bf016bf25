import Foundation

extension BuiltinRoutes {
    /// The realm the Digest routes challenge with.
    static let digestRealm = "courier"

    /// `/digest-auth/{qop}/{user}/{password}/{algorithm}[/stale-after/{n}]`:
    /// HTTP Digest (RFC 7616), checked in full. `qop` is `auth`, `auth-int`
    /// or `none` (RFC 2069's form, `MD5` only); `algorithm` is `MD5`,
    /// `MD5-sess`, `SHA-256` or `SHA-256-sess`; `?userhash=true` asks for
    /// the user name hashed. 200 for a correct answer; otherwise 401 with a
    /// fresh challenge and a JSON body saying what was wrong. With
    /// `stale-after/{n}`, a correct answer whose nonce count is above `n`
    /// gets 401 with `stale=true` and a new nonce — how a server retires a
    /// nonce a client keeps reusing.
    ///
    /// Stateless: a nonce is random bytes and a MAC under a key made when
    /// the process starts, so any nonce this server issued is accepted.
    static func digestAuth(_ segments: [String], _ request: RecordedRequest) -> BuiltinAnswer {
        let route = "/digest-auth/{qop}/{user}/{password}/{algorithm}"
        let staleAfter: Int?
        if segments.count == 6, segments[4] == "stale-after", let count = Int(segments[5]), count >= 0 {
            staleAfter = count
        } else if segments.count == 4 {
            staleAfter = nil
        } else {
            return BuiltinAnswer(
                route: route,
                response: .json(
                    .object(["error": .string("expected /digest-auth/{qop}/{user}/{password}/{algorithm}")]),
                    status: 400))
        }
        let qop = segments[0]
        let user = FormDecoding.decode(Substring(segments[1]))
        let password = FormDecoding.decode(Substring(segments[2]))
        let algorithm = segments[3]
        guard ["auth", "auth-int", "none"].contains(qop), DigestHash.hex(algorithm, []) != nil,
            qop != "none" || algorithm.lowercased() == "md5"
        else {
            return BuiltinAnswer(
                route: route,
                response: .json(
                    .object([
                        "error": .string(
                            "qop must be auth, auth-int or none (MD5 only); algorithm MD5, MD5-sess, SHA-256 or SHA-256-sess"
                        )
                    ]), status: 400))
        }
        let userhash = request.query.contains { $0.name == "userhash" && $0.value == "true" }
        let check = DigestCheck(
            qop: qop, user: user, password: password, algorithm: algorithm, userhash: userhash)
        switch check.verify(request) {
        case .accepted(let count):
            if let staleAfter, count > staleAfter {
                return BuiltinAnswer(
                    route: route, response: check.challenge(stale: true, reason: "stale nonce"))
            }
            return BuiltinAnswer(
                route: route, response: .json(.object(["authenticated": .bool(true), "user": .string(user)])))
        case .refused(let reason):
            return BuiltinAnswer(route: route, response: check.challenge(stale: false, reason: reason))
        }
    }
}

/// One Digest route's expectations, and its check of an `Authorization` field.
struct DigestCheck {
    let qop: String
    let user: String
    let password: String
    let algorithm: String
    let userhash: Bool
    let realm = BuiltinRoutes.digestRealm
    let opaque = "c29tZS1vcGFxdWU"

    enum Verdict {
        /// A correct answer, with its nonce count (1 without `qop`).
        case accepted(count: Int)
        case refused(String)
    }

    /// The 401 asking for credentials, with a fresh nonce.
    func challenge(stale: Bool, reason: String) -> StubResponse {
        var parameters = [
            "realm=\"\(realm)\"", "nonce=\"\(DigestNonce.issue())\"", "opaque=\"\(opaque)\"",
            "algorithm=\(algorithm)",
        ]
        if qop != "none" { parameters.append("qop=\"\(qop)\"") }
        if stale { parameters.append("stale=true") }
        if userhash { parameters.append("userhash=true") }
        var response = StubResponse.json(.object(["error": .string(reason)]), status: 401)
        response.headers.append(("WWW-Authenticate", "Digest " + parameters.joined(separator: ", ")))
        return response
    }

    /// Checks every parameter of the request's `Authorization: Digest …`.
    func verify(_ request: RecordedRequest) -> Verdict {
        guard let field = request.header("Authorization") else { return .refused("no Authorization field") }
        guard field.lowercased().hasPrefix("digest ") else { return .refused("not a Digest answer") }
        let answer = DigestParameters.parse(String(field.dropFirst(7)))
        let hash = { (text: String) in DigestHash.hex(algorithm, text) ?? "" }
        if userhash {
            guard answer["userhash"] == "true", answer["username"] == hash("\(user):\(realm)") else {
                return .refused("the user name is not the hash userhash=true asks for")
            }
        } else if let encoded = answer["username*"] {
            guard encoded.lowercased().hasPrefix("utf-8''"),
                FormDecoding.decode(Substring(encoded.dropFirst(7))) == user
            else { return .refused("username* does not name the user") }
        } else if answer["username"] != user {
            return .refused("wrong user name")
        }
        guard answer["realm"] == realm else { return .refused("wrong realm") }
        guard answer["uri"] == request.uri else { return .refused("uri is not the request-target") }
        guard let nonce = answer["nonce"], DigestNonce.isIssued(nonce) else {
            return .refused("unknown nonce")
        }
        guard answer["opaque"] == opaque else { return .refused("opaque not echoed") }
        guard (answer["algorithm"] ?? "MD5").lowercased() == algorithm.lowercased() else {
            return .refused("wrong algorithm")
        }
        var secret = hash("\(user):\(realm):\(password)")
        var scope = "\(request.method):\(request.uri)"
        guard qop != "none" else {
            return answer["response"] == hash("\(secret):\(nonce):\(hash(scope))")
                ? .accepted(count: 1) : .refused("wrong response")
        }
        guard answer["qop"] == qop else { return .refused("qop is not \(qop)") }
        guard let nc = answer["nc"], nc.utf8.count == 8, let count = Int(nc, radix: 16), count > 0 else {
            return .refused("nc must be 8 hexadecimal digits, from 00000001")
        }
        guard let cnonce = answer["cnonce"], !cnonce.isEmpty else { return .refused("no cnonce") }
        if algorithm.lowercased().hasSuffix("-sess") { secret = hash("\(secret):\(nonce):\(cnonce)") }
        if qop == "auth-int" { scope += ":" + (DigestHash.hex(algorithm, request.body) ?? "") }
        let expected = hash("\(secret):\(nonce):\(nc):\(cnonce):\(qop):\(hash(scope))")
        return answer["response"] == expected ? .accepted(count: count) : .refused("wrong response")
    }
}

/// Nonces only this process issues: 12 random bytes and a MAC over them.
enum DigestNonce {
    private static let key: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }()

    static func issue() -> String {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<12).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let hex = random.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return hex + "." + mac(hex)
    }

    static func isIssued(_ nonce: String) -> Bool {
        let parts = nonce.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && mac(String(parts[0])) == String(parts[1])
    }

    private static func mac(_ text: String) -> String {
        String((DigestHash.hex("SHA-256", key + Array(text.utf8)) ?? "").prefix(32))
    }
}

/// The parameters of an `Authorization: Digest` value: `name=value` or
/// `name="quoted value"`, comma-separated; names lowercased.
enum DigestParameters {
    static func parse(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            while let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: ",") {
                bytes = bytes.dropFirst()
            }
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { break }
            let name = String(decoding: bytes[..<equals], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            bytes = bytes[(equals + 1)...]
            var value: [UInt8] = []
            if bytes.first == UInt8(ascii: "\"") {
                bytes = bytes.dropFirst()
                while let byte = bytes.popFirst(), byte != UInt8(ascii: "\"") {
                    if byte == UInt8(ascii: "\\"), let escaped = bytes.popFirst() {
                        value.append(escaped)
                    } else {
                        value.append(byte)
                    }
                }
            } else {
                while let byte = bytes.first, byte != UInt8(ascii: ",") {
                    value.append(byte)
                    bytes = bytes.dropFirst()
                }
            }
            let key = name.lowercased()
            if result[key] == nil {
                result[key] = String(decoding: value, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            }
        }
        return result
    }
}
