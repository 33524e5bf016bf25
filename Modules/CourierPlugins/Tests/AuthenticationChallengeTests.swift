import CourierPlugins
import CourierTestSupport
import HTTPTypes
import Testing

/// `AuthenticationChallenge` reads RFC 9110's challenge grammar, where one
/// comma separates both challenges and their parameters.
struct AuthenticationChallengeTests {
    @Test func rfc7616sTwoDigestChallengesInOneField() {
        // RFC 7616 §3.9.1's response, its two challenges in one field.
        let field = """
            Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, \
            nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", \
            opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", Digest realm="http-auth@example.org", \
            qop="auth, auth-int", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", \
            opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
            """
        let challenges = AuthenticationChallenge.parse(field)
        #expect(challenges.count == 2)
        #expect(challenges.allSatisfy { $0.isScheme("digest") })
        #expect(challenges.map { $0.parameter("algorithm") } == ["SHA-256", "MD5"])
        #expect(challenges[0].parameter("QOP") == "auth, auth-int")
        #expect(challenges[1].parameter("nonce") == "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v")
        #expect(challenges[0].parameters.count == 5)
    }

    @Test func schemesWithoutParametersToken68AndSpacesAroundEquals() {
        let challenges = AuthenticationChallenge.parse(
            #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm = "simple", Negotiate a87421000492aa874209af8bc028==, Bearer"#
        )
        #expect(challenges.map(\.scheme) == ["Newauth", "Basic", "Negotiate", "Bearer"])
        #expect(challenges[0].parameters == ["realm": "apps", "type": "1", "title": #"Login to "apps""#])
        #expect(challenges[1].parameter("realm") == "simple")
        #expect(challenges[2].token68 == "a87421000492aa874209af8bc028==")
        #expect(challenges[2].parameters.isEmpty)
        #expect(challenges[3].parameters.isEmpty && challenges[3].token68 == nil)
    }

    @Test func everyFieldOfAResponseIsRead() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .wwwAuthenticate, value: #"Digest realm="a", nonce="1""#))
        fields.append(HTTPField(name: .wwwAuthenticate, value: #"Basic realm="a""#))
        fields.append(HTTPField(name: .proxyAuthenticate, value: #"Basic realm="proxy""#))
        #expect(AuthenticationChallenge.challenges(in: fields).map(\.scheme) == ["Digest", "Basic"])
        #expect(
            AuthenticationChallenge.challenges(in: fields, field: .proxyAuthenticate).map {
                $0.parameter("realm")
            } == ["proxy"])
    }

    @Test func malformedPartsLoseOnlyThemselves() {
        // An unterminated quote ends the field; a parameter with no value
        // ends its challenge; a repeated parameter keeps its first value.
        #expect(AuthenticationChallenge.parse(#"Basic realm="open"#).map(\.scheme) == ["Basic"])
        let broken = AuthenticationChallenge.parse(#"Digest realm=, nonce="n", Basic realm="b""#)
        #expect(broken.last?.isScheme("Basic") == true)
        #expect(broken.last?.parameter("realm") == "b")
        let twice = AuthenticationChallenge.parse(#"Digest realm="first", realm="second""#)
        #expect(twice.first?.parameter("realm") == "first")
        #expect(AuthenticationChallenge.parse("").isEmpty)
        #expect(AuthenticationChallenge.parse(" , ,").isEmpty)
    }
}
