import CourierCore
import CourierTestSupport
import Foundation
import HTTPTypes
import Testing

@testable import CourierPlugins

/// What ``Redaction`` masks, piece by piece.
struct RedactionTests {
    let redaction = Redaction.standard

    func json(_ text: String) -> String {
        String(decoding: redaction.json(Array(text.utf8)), as: UTF8.self)
    }

    @Test func urlsKeepTheirShapeWithoutTheirSecrets() throws {
        var head = HTTPRequest(
            method: .get,
            url: try #require(URL(string: "https://api.test/v1/items?page=2&access_token=abc&Token=x&ok=1")))
        #expect(redaction.url(head) == "https://api.test/v1/items?page=2&access_token=***&Token=***&ok=1")
        head.authority = "ada:hunter2@api.test:8443"
        #expect(redaction.url(head).hasPrefix("https://***@api.test:8443/v1/items"))
        #expect(redaction.path("/a?to%6Ben=zzz&b") == "/a?to%6Ben=***&b")
    }

    /// How real APIs spell the same secrets: one name whatever the case and
    /// separators (OAuth's `refresh_token`, JavaScript's `refreshToken`,
    /// header-like `Refresh-Token`).
    @Test(arguments: [
        "refresh_token", "refreshToken", "Refresh-Token", "REFRESH_TOKEN", "access_token", "accessToken",
        "idToken", "id_token", "client_secret", "clientSecret", "api_key", "apiKey", "API-Key", "Password",
        "sessionToken", "session.token", "privateKey", "private_key", "passphrase", "token", "Authorization",
    ])
    func everySpellingOfASecretIsMasked(name: String) {
        #expect(json(#"{"\#(name)":"s3cret","id":1}"#) == #"{"\#(name)":"***","id":1}"#)
        let form = redaction.body(
            Array("\(name)=s3cret&id=1".utf8), contentType: "application/x-www-form-urlencoded", limit: 1000)
        #expect(form == "\(name)=***&id=1")
    }

    @Test(arguments: ["refreshToken", "Access-Token", "clientSecret", "apiKey", "Sig", "X-Amz-Signature"])
    func everySpellingOfAQueryTokenIsMasked(name: String) {
        #expect(redaction.path("/a?\(name)=s3cret&page=2") == "/a?\(name)=***&page=2")
    }

    /// A name a user adds is compared the same way, however it is written:
    /// inserting `pinCode` used to do nothing (the set was compared lowercased).
    @Test func aNameAUserAddsMatchesEverySpelling() {
        var custom = Redaction.standard
        custom.bodyFields.insert("pinCode")
        custom.queryParameters.insert("Session-ID")
        #expect(custom.bodyFields.contains("pinCode"))  // kept as written
        for spelling in ["pinCode", "pin_code", "PIN-CODE"] {
            let masked = String(decoding: custom.json(Array(#"{"\#(spelling)":"1234"}"#.utf8)), as: UTF8.self)
            #expect(masked == #"{"\#(spelling)":"***"}"#)
        }
        #expect(custom.path("/a?session_id=1&sessionId=2") == "/a?session_id=***&sessionId=***")
        #expect(json(#"{"pinCode":"1234"}"#) == #"{"pinCode":"1234"}"#)  // the standard list is untouched
    }

    @Test func headerValuesAreMaskedNamesKept() {
        let lines = redaction.lines([
            .authorization: "Bearer abc", .accept: "application/json", .cookie: "sid=1",
        ])
        #expect(lines == ["Authorization: ***", "Accept: application/json", "Cookie: ***"])
    }

    @Test(arguments: [
        (#"{"user":"ada","password":"hunter2"}"#, #"{"user":"ada","password":"***"}"#),
        (#"{"a":{"token": "x", "n": 1}}"#, #"{"a":{"token": "***", "n": 1}}"#),
        (
            #"[{"secret":42},{"secret":true},{"secret":null}]"#,
            #"[{"secret":"***"},{"secret":"***"},{"secret":"***"}]"#
        ),
        (#"{"password":{"old":"a","new":"b"},"x":1}"#, #"{"password":"***","x":1}"#),
        (#"{"password":["a","b"]}"#, #"{"password":"***"}"#),
        (#"{"note":"say \"password\": now","pin":"1234"}"#, #"{"note":"say \"password\": now","pin":"***"}"#),
        (#"{"pass\u0077ord":"hunter2"}"#, #"{"pass\u0077ord":"***"}"#),
        (#"{"PASSWORD" : "x"}"#, #"{"PASSWORD" : "***"}"#),
        (#"{"user":"ada","password":"hunt"#, #"{"user":"ada","password":"***""#),
        (#"{"token":"a\"b\\c","z":0}"#, #"{"token":"***","z":0}"#),
    ])
    func jsonFieldsAreMaskedAtAnyDepth(input: String, expected: String) {
        #expect(json(input) == expected)
    }

    @Test func formsCutBodiesAndBinaries() {
        #expect(
            redaction.body(
                Array("user=ada&password=hunter2&token=t".utf8),
                contentType: "application/x-www-form-urlencoded", limit: 100)
                == "user=ada&password=***&token=***")
        #expect(
            redaction.body([0, 1, 2, 255], contentType: "application/octet-stream", limit: 100)
                == "<4 bytes of application/octet-stream, not shown>")
        #expect(
            redaction.body(Array("--b\r\n".utf8), contentType: "multipart/form-data; boundary=b", limit: 100)
                .hasPrefix("<multipart/form-data body"))
        // Cut after masking, on a character boundary.
        let long =
            #"{"password":"\#(String(repeating: "s", count: 50))","é":"\#(String(repeating: "é", count: 40))"}"#
        let cut = redaction.body(Array(long.utf8), contentType: "application/json", limit: 30)
        #expect(cut.hasPrefix(#"{"password":"***","é":""#) && !cut.contains("sss") && cut.hasSuffix("bytes)"))
    }

    @Test func curlCommandsAreQuotedAndMasked() throws {
        var head = HTTPRequest(
            method: .post, url: try #require(URL(string: "https://api.test/login?token=t0p")))
        head.headerFields = [
            .authorization: "Bearer s3cr3t", .contentType: "application/json",
            HTTPField.Name("X-Note")!: "it's",
        ]
        let body = RequestBody(bytes: Array(#"{"user":"o'neil","password":"p4ss"}"#.utf8))
        let command = CurlCommand(head, body: body).description
        #expect(
            command
                == #"curl -X POST 'https://api.test/login?token=***' -H 'Authorization: ***' -H 'Content-Type: application/json' -H 'X-Note: it'\''s' --data-binary '{"user":"o'\''neil","password":"***"}'"#
        )
        #expect(
            CurlCommand(HTTPRequest(method: .get, url: try #require(URL(string: "https://a.test/"))))
                .description == "curl 'https://a.test/'")
    }
}
