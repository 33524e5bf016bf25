import CourierMockServer
import Testing

/// `/digest-auth/…`: the challenge it sends and the answers it refuses. The
/// answers it accepts are computed by Courier's client in the conformance
/// suite (`ChallengeAuthenticationTests`), against this route's libcrypto.
struct DigestRouteTests {
    @Test(arguments: ["auth", "auth-int"], ["MD5", "SHA-256", "SHA-256-sess"])
    func aRequestWithoutCredentialsIsChallenged(qop: String, algorithm: String) async throws {
        try await withServer { server async throws in
            let response = try await RawClient.send(
                port: server.port, "/digest-auth/\(qop)/ada/secret/\(algorithm)")
            #expect(response.status == 401)
            let challenge = try #require(response.header("WWW-Authenticate"))
            #expect(challenge.hasPrefix("Digest realm=\"courier\", nonce=\""))
            #expect(challenge.contains("algorithm=\(algorithm)"))
            #expect(challenge.contains("qop=\"\(qop)\""))
            #expect(!challenge.contains("stale"))
            #expect(response.bodyText.contains("no Authorization field"))
            let again = try await RawClient.send(
                port: server.port, "/digest-auth/\(qop)/ada/secret/\(algorithm)")
            #expect(again.header("WWW-Authenticate") != challenge)  // a fresh nonce each time
        }
    }

    @Test func badRoutesAreRefusedWith400() async throws {
        try await withServer { server async throws in
            for path in [
                "/digest-auth/auth/ada/secret/SHA-512-256", "/digest-auth/none/ada/secret/SHA-256",
                "/digest-auth/bogus/ada/secret/MD5", "/digest-auth/auth/ada/secret",
                "/digest-auth/auth/ada/secret/MD5/stale-after/x",
            ] {
                #expect(try await RawClient.send(port: server.port, path).status == 400, "\(path)")
            }
        }
    }

    @Test func wrongAnswersAreRefusedSayingWhy() async throws {
        try await withServer { server async throws in
            let path = "/digest-auth/auth/ada/secret/MD5"
            let answers: [(String, String)] = [
                ("Basic YWRhOnNlY3JldA==", "not a Digest answer"),
                (#"Digest username="bob", realm="courier", uri="\#(path)", nonce="x.y""#, "wrong user name"),
                (#"Digest username="ada", realm="elsewhere", uri="\#(path)", nonce="x.y""#, "wrong realm"),
                (
                    #"Digest username="ada", realm="courier", uri="/other", nonce="x.y""#,
                    "uri is not the request-target"
                ),
                (
                    #"Digest username="ada", realm="courier", uri="\#(path)", nonce="forged.0""#,
                    "unknown nonce"
                ),
            ]
            for (field, reason) in answers {
                let response = try await RawClient.send(
                    port: server.port, path, headers: [("Authorization", field)])
                #expect(response.status == 401)
                #expect(response.bodyText.contains(reason), "\(field) → \(response.bodyText)")
                #expect(response.header("WWW-Authenticate")?.hasPrefix("Digest ") == true)
            }
        }
    }
}
