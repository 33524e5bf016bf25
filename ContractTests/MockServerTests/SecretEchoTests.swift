import CourierMockServer
import Foundation
import Testing

/// courier-mock's own answers never repeat a request's secrets: the 404 an
/// unmatched request gets (its near misses, also kept in its journal entry
/// for the live page), and the strict mode's failure list mask the
/// values of credential fields, token query parameters and secret body
/// fields — as the HAR export and recordings do. (The journal's record of
/// the request itself stays exact: it is what tests assert the wire from.)
struct SecretEchoTests {
    static let stubs = #"""
        {"mappings": [{"id": "needs-key", "request": {"method": "POST", "urlPath": "/needs-key",
          "headers": {"Authorization": {"equalTo": "Bearer the-right-one"},
                      "X-API-Key": {"matches": "k-.*"}},
          "queryParameters": {"access_token": {"equalTo": "q-right"}},
          "bodyPatterns": [{"equalToJson": {"password": "p-right"}}]},
          "response": {"status": 200}}]}
        """#

    static let planted = ["NEWCOMER-T0KEN", "APIKEY-S3CRET", "QUERY-T0KEN", "BODY-PASSW0RD"]

    @Test func anUnmatchedRequestsSecretsStayOutOfEveryAnswerAboutIt() async throws {
        try await withServer(Self.stubs, strict: true) { server async throws in
            let response = try await RawClient.send(
                port: server.port, "/needs-key?access_token=QUERY-T0KEN&page=2", method: "POST",
                headers: [
                    ("Authorization", "Bearer NEWCOMER-T0KEN"), ("X-API-Key", "APIKEY-S3CRET"),
                    ("Content-Type", "application/json"),
                ],
                body: Array(#"{"password": "BODY-PASSW0RD", "user": "ada"}"#.utf8))
            #expect(response.status == 404)
            // The near misses are there, and say which matchers failed…
            #expect(response.bodyText.contains("needs-key"))
            #expect(response.bodyText.lowercased().contains("header authorization"))
            let verify = try await RawClient.send(port: server.port, "/__admin/verify")
            let har = try await RawClient.send(port: server.port, "/__admin/requests/har")
            // …but none of the request's secrets.
            for (what, text) in [
                ("the 404", response.bodyText),
                ("verify", verify.bodyText), ("the HAR", har.bodyText),
                ("the journal's near misses", "\(server.journal.entries.last?.nearMisses ?? [])"),
            ] {
                for secret in Self.planted {
                    #expect(!text.contains(secret), "\(what) repeats \(secret)")
                }
            }
            // What is not secret is still shown.
            #expect(response.bodyText.contains("page=2"))
        }
    }
}
