import CourierAuthentication
import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

@testable import CourierPlugins

/// `ChallengeAuthenticator` in a client: the RFCs' worked examples to the
/// byte, the protection space it remembers, and where it never answers.
/// The wire over every transport, against a server that checks every
/// answer, is in the contract suite (`ChallengeAuthenticationTests`).
struct ChallengeAuthenticatorTests {
    static let example = Node("example", baseURL: "https://www.example.org")

    static func authenticator(
        _ user: String = "ada", _ password: String = "secret", for scope: AuthenticationScope = [.api],
        cnonce: String = "c1", basicOverHTTP: Bool = false
    ) -> ChallengeAuthenticator {
        ChallengeAuthenticator(
            user: user, password: password, for: scope, realm: nil, allowsBasicOverPlainHTTP: basicOverHTTP,
            clientNonce: { cnonce })
    }

    static func challenges(_ values: String...) -> HTTPFields {
        var fields = HTTPFields()
        for value in values { fields.append(HTTPField(name: .wwwAuthenticate, value: value)) }
        return fields
    }

    static func client(_ origin: Origin, _ auth: ChallengeAuthenticator, perCall: Bool = false) -> APIClient {
        APIClient(
            configuration: perCall
                ? .init(transport: origin.transport, callInterceptors: [auth])
                : .init(transport: origin.transport, attemptInterceptors: [auth]))
    }

    static let items = Endpoint<RawResponse>(.get("items"), on: .api)

    /// A server that challenges requests without credentials and takes any answer.
    static func challenging(_ challenge: String) -> Origin {
        Origin { head, _ in
            head.headerFields[.authorization] == nil
                ? .status(401, headers: challenges(challenge)) : .json("{}")
        }
    }

    // MARK: - The RFCs' examples

    @Test func rfc7616sExampleIsAnsweredWithSHA256BeforeMD5() async throws {
        let nonce = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v"
        let opaque = "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
        let origin = Origin { head, _ in
            head.headerFields[.authorization] != nil
                ? .json("{}")
                : .status(
                    401,
                    headers: Self.challenges(
                        #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, nonce="\#(nonce)", opaque="\#(opaque)""#,
                        #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="\#(nonce)", opaque="\#(opaque)""#
                    ))
        }
        let auth = Self.authenticator(
            "Mufasa", "Circle of Life", for: [Self.example],
            cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
        _ = try await Self.client(origin, auth).send(
            Endpoint<RawResponse>(.get("dir/index.html"), on: Self.example))
        try #require(origin.requests.count == 2)
        #expect(origin.requests[0].head.headerFields[.authorization] == nil)
        #expect(
            origin.requests[1].head.headerFields[.authorization]
                == #"Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", algorithm=SHA-256, nonce="\#(nonce)", nc=00000001, cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", qop=auth, response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", opaque="\#(opaque)""#
        )
    }

    @Test func rfc7616sMD5AndRFC2617sExamples() async throws {
        let cases: [(challenge: String, password: String, cnonce: String, response: String)] = [
            (
                #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#,
                "Circle of Life", "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
                "8ca523f5e9506fed4657c9700eebdbec"
            ),
            (
                // RFC 2617 §3.5: no algorithm (MD5).
                #"Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#,
                "Circle Of Life", "0a4f113b", "6629fae49393a05397450978507c4ef1"
            ),
        ]
        for example in cases {
            let origin = Self.challenging(example.challenge)
            let auth = Self.authenticator(
                "Mufasa", example.password, for: [Self.example], cnonce: example.cnonce)
            _ = try await Self.client(origin, auth).send(
                Endpoint<RawResponse>(.get("dir/index.html"), on: Self.example))
            let answer = try #require(origin.requests.last?.head.headerFields[.authorization])
            #expect(answer.contains(#"response="\#(example.response)""#), "\(answer)")
            #expect(answer.contains("algorithm=MD5, "))
        }
    }

    @Test func authIntCoversTheBodyAsSent() async throws {
        let origin = Self.challenging(#"Digest realm="api", qop="auth-int", algorithm=SHA-256, nonce="n1""#)
        let upload = Endpoint<RawResponse>(
            .post("items"), on: .api, content: .raw(Array(#"{"a":1}"#.utf8), contentType: "application/json"))
        _ = try await Self.client(origin, Self.authenticator()).send(upload)
        let answer = try #require(origin.requests.last?.head.headerFields[.authorization])
        #expect(answer.contains("qop=auth-int"))
        #expect(
            answer.contains(#"response="06920344d9fa18d6622246f2d6887ea315fa046da614c31c8470340fa3dc497d""#))
    }

    @Test func userhashAndANonASCIIUserName() async throws {
        let hashed = Self.challenging(
            #"Digest realm="api", qop="auth", algorithm=SHA-256, nonce="n1", userhash=true"#)
        _ = try await Self.client(hashed, Self.authenticator()).send(Self.items)
        let answer = try #require(hashed.requests.last?.head.headerFields[.authorization])
        #expect(
            answer.hasPrefix(
                #"Digest username="318498cc31b7411d0aeae1314e4156a66f1ae6bf9aa1b58709bc615073fc6921", "#))
        #expect(answer.hasSuffix("userhash=true"))
        // RFC 7616 §3.9.2's user, by RFC 8187's encoding.
        let plain = Self.challenging(#"Digest realm="api", qop="auth", algorithm=SHA-256, nonce="n1""#)
        _ = try await Self.client(plain, Self.authenticator("Jäsøn Doe")).send(Self.items)
        let encoded = try #require(plain.requests.last?.head.headerFields[.authorization])
        #expect(encoded.hasPrefix("Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, "))
    }

    // MARK: - The protection space

    @Test func laterCallsAnswerAtOnceWithTheNextNonceCount() async throws {
        let origin = Self.challenging(#"Digest realm="api", qop="auth", algorithm=SHA-256, nonce="n1""#)
        let client = Self.client(origin, Self.authenticator())
        _ = try await client.send(Self.items)
        _ = try await client.send(Self.items)
        let sent = origin.requests.map { $0.head.headerFields[.authorization] }
        try #require(sent.count == 3)  // one challenge, then signed at once
        #expect(sent[0] == nil)
        #expect(
            sent[1]?.contains(
                #"nc=00000001, cnonce="c1", qop=auth, response="5ec015775a8a775371b9fabf819d246eae65e1b0f0e2f0b77a089718a6ed8f55""#
            ) == true)
        #expect(
            sent[2]?.contains(
                #"nc=00000002, cnonce="c1", qop=auth, response="b9a12e1ebd5fb35800edaaf9697727a6451ea6f3af6ba8da6d26f0f3d3eac846""#
            ) == true)
    }

    @Test func aStaleNonceIsAnsweredOnceWithTheNewOne() async throws {
        let origin = Origin { head, number in
            switch number {
            case 1: .status(401, headers: Self.challenges(#"Digest realm="api", qop="auth", nonce="n1""#))
            case 3:
                .status(
                    401, headers: Self.challenges(#"Digest realm="api", qop="auth", nonce="n2", stale=true"#))
            default: .json("{}")
            }
        }
        let client = Self.client(origin, Self.authenticator())
        _ = try await client.send(Self.items)
        _ = try await client.send(Self.items)
        let sent = origin.requests.map { $0.head.headerFields[.authorization] ?? "" }
        try #require(sent.count == 4)
        #expect(sent[2].contains(#"nonce="n1", nc=00000002"#))
        #expect(sent[3].contains(#"nonce="n2", nc=00000001"#))
    }

    @Test func wrongCredentialsEndTheCallAndAreForgotten() async throws {
        let origin = Origin { _, _ in
            .status(401, headers: Self.challenges(#"Digest realm="api", qop="auth", nonce="n1", stale=true"#))
        }
        let client = Self.client(origin, Self.authenticator())
        for _ in 0..<2 {
            await #expect(throws: CourierError.self) { try await client.send(Self.items) }
        }
        // Per call: unsigned, answered, one stale retry — then the 401 stands.
        let sent = origin.requests.map { $0.head.headerFields[.authorization] }
        #expect(sent.count == 6)
        #expect(sent[0] == nil && sent[3] == nil)  // the refused space was not kept
        #expect(sent[1] != nil && sent[2] != nil)
    }

    @Test func theCallerSees401WhenItIsNotAnswered() async throws {
        let origin = Self.challenging(#"Negotiate"#)
        let error = await #expect(throws: CourierError.self) {
            try await Self.client(origin, Self.authenticator()).send(Self.items)
        }
        #expect(error?.response?.statusCode == 401)
        #expect(origin.requests.count == 1)
    }

    // MARK: - Where it never answers

    @Test func otherOriginsOptedOutEndpointsAndOwnCredentialsPassUntouched() async throws {
        let origin = Origin { _, _ in
            .status(401, headers: Self.challenges(#"Digest realm="api", qop="auth", nonce="n1""#))
        }
        let client = Self.client(origin, Self.authenticator())
        let elsewhere = Node("other", baseURL: "https://other.example.com")
        var own = Self.items
        own.headers[.authorization] = "Bearer mine"
        for endpoint in [
            Endpoint<RawResponse>(.get("items"), on: elsewhere), Self.items.withoutAuthentication(), own,
        ] {
            await #expect(throws: CourierError.self) { try await client.send(endpoint) }
        }
        #expect(origin.requests.count == 3)
        #expect(origin.requests.map { $0.head.headerFields[.authorization] } == [nil, nil, "Bearer mine"])
    }

    @Test func basicOverPlainHTTPIsRefusedUnlessAllowed() async throws {
        let plain = Node("plain", baseURL: "http://api.example.com")
        let origin = Self.challenging(#"Basic realm="api""#)
        let error = await #expect(throws: CourierError.self) {
            try await Self.client(origin, Self.authenticator(for: [plain])).send(
                Endpoint<RawResponse>(.get("items"), on: plain))
        }
        #expect(error?.code == .authentication)
        #expect(error?.message.contains("plain http") == true)
        #expect(origin.requests.count == 1)
        _ = try await Self.client(origin, Self.authenticator(for: [plain], basicOverHTTP: true)).send(
            Endpoint<RawResponse>(.get("items"), on: plain))
        #expect(origin.requests.last?.head.headerFields[.authorization] == "Basic YWRhOnNlY3JldA==")
    }

    @Test func basicIsSentAtOnceOnlyWithinTheChallengedDirectory() async throws {
        let origin = Self.challenging(#"Basic realm="api""#)
        let root = Node("root", baseURL: "https://api.example.com")
        let client = Self.client(origin, Self.authenticator())
        _ = try await client.send(Self.items)  // /v1/items: challenged, answered
        _ = try await client.send(Endpoint<RawResponse>(.get("users"), on: .api))  // /v1/users: at once
        _ = try await client.send(Endpoint<RawResponse>(.get("other"), on: root))  // /other: challenged again
        let sent = origin.requests.map { $0.head.headerFields[.authorization] }
        #expect(
            sent == [nil, "Basic YWRhOnNlY3JldA==", "Basic YWRhOnNlY3JldA==", nil, "Basic YWRhOnNlY3JldA=="])
    }

    @Test func aPerCallRegistrationAnswersTooFromTheErrorsResponse() async throws {
        let origin = Self.challenging(#"Digest realm="api", qop="auth", algorithm=SHA-256, nonce="n1""#)
        _ = try await Self.client(origin, Self.authenticator(), perCall: true).send(Self.items)
        #expect(origin.requests.count == 2)
        #expect(origin.requests.last?.head.headerFields[.authorization]?.contains("nc=00000001") == true)
    }

    /// Origin A, in the scope, redirects to origin B, which challenges: the
    /// answer would go to A (the interceptor sends the attempt's first hop),
    /// so it is not made; the caller gets B's 401, and A never sees an
    /// `Authorization` — in either tier, for Basic and for Digest.
    @Test(arguments: [false, true], [#"Basic realm="b""#, #"Digest realm="b", qop="auth", nonce="n-b""#])
    func aChallengeFromAnotherOriginIsNotAnsweredToTheFirst(perCall: Bool, challenge: String) async throws {
        let origin = Origin { head, _ in
            if head.authority == "api.example.com" {
                var fields = HTTPFields()
                fields[.location] = "https://b.example.net/items"
                return .status(307, headers: fields)
            }
            return .status(401, headers: Self.challenges(challenge))
        }
        let auth = Self.authenticator(for: [.api])
        let error = await #expect(throws: CourierError.self) {
            try await Self.client(origin, auth, perCall: perCall).send(Self.items)
        }
        #expect(error?.response?.statusCode == 401)
        let answeredTo = origin.requests.filter { $0.head.headerFields[.authorization] != nil }.map {
            $0.head.authority ?? ""
        }
        #expect(answeredTo.isEmpty, "an answer to b.example.net's challenge went to \(answeredTo)")
        // And nothing of B's was remembered for A: the next call goes out bare.
        let before = origin.requests.count
        _ = try? await Self.client(origin, auth, perCall: perCall).send(Self.items)
        #expect(origin.requests.dropFirst(before).first?.head.headerFields[.authorization] == nil)
    }

    @Test func itDeclaresWhoseCredentialsItAdds() async throws {
        let context = CallContext(
            callID: 1, name: "items", route: .get("items"), node: .api, environment: .production, attempt: 1)
        let ada = try await Self.authenticator("ada", "one").credentialIdentity(for: context)
        let adaAgain = try await Self.authenticator("ada", "one").credentialIdentity(for: context)
        let adaOtherPassword = try await Self.authenticator("ada", "two").credentialIdentity(for: context)
        let bob = try await Self.authenticator("bob", "one").credentialIdentity(for: context)
        #expect(ada == adaAgain)
        #expect(ada != adaOtherPassword && ada != bob)
        #expect(ada != .none && ada != .undeclared)
        let optedOut = CallContext(
            callID: 2, name: "items", route: .get("items"), node: .api, environment: .production, attempt: 1,
            authenticates: false)
        let none = try await Self.authenticator().credentialIdentity(for: optedOut)
        #expect(none == CredentialIdentity.none)
    }
}
