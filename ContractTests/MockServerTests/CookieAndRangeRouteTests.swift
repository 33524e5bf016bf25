import CourierMockServer
import Foundation
import Testing

/// `/cookies`, `/cookies/set`, `/cookies/delete`, `/range/{n}` and byte
/// ranges on any response that accepts them.
struct CookieAndRangeRouteTests {
    @Test func cookiesAreSetEchoedAndDeleted() async throws {
        try await withServer { server async throws in
            let set = try await RawClient.send(port: server.port, "/cookies/set?session=abc&theme=dark")
            #expect(set.status == 302)
            #expect(set.header("Location") == "/cookies")
            #expect(
                set.headers.filter { $0.0 == "Set-Cookie" }.map(\.1) == [
                    "session=abc; Path=/", "theme=dark; Path=/",
                ])
            let echo = try await RawClient.send(
                port: server.port, "/cookies", headers: [("Cookie", "session=abc; theme=dark")])
            #expect(
                try JSONValue.parse(echo.body)
                    == .object(["cookies": .object(["session": .string("abc"), "theme": .string("dark")])]))
            let none = try await RawClient.send(port: server.port, "/cookies")
            #expect(try JSONValue.parse(none.body) == .object(["cookies": .object([:])]))
            let delete = try await RawClient.send(port: server.port, "/cookies/delete?session")
            #expect(delete.header("Set-Cookie")?.hasPrefix("session=; Expires=Thu, 01 Jan 1970") == true)
            // A value that would split the header is refused, not sent.
            #expect(try await RawClient.send(port: server.port, "/cookies/set?a=b%0D%0AX:1").status == 400)
        }
    }

    @Test func rangesAreServedWithValidators() async throws {
        try await withServer { server async throws in
            let whole = try await RawClient.send(port: server.port, "/range/1000")
            #expect(whole.status == 200)
            #expect(whole.body.count == 1000)
            #expect(whole.header("Accept-Ranges") == "bytes")
            let etag = try #require(whole.header("ETag"))
            let slice = try await RawClient.send(
                port: server.port, "/range/1000", headers: [("Range", "bytes=100-199")])
            #expect(slice.status == 206)
            #expect(slice.header("Content-Range") == "bytes 100-199/1000")
            #expect(slice.body == Array(whole.body[100...199]))
            let tail = try await RawClient.send(
                port: server.port, "/range/1000", headers: [("Range", "bytes=990-"), ("If-Range", etag)])
            #expect(tail.status == 206)
            #expect(tail.body == Array(whole.body[990...]))
            let suffix = try await RawClient.send(
                port: server.port, "/range/1000", headers: [("Range", "bytes=-5")])
            #expect(suffix.header("Content-Range") == "bytes 995-999/1000")
            // A changed validator: the whole representation, not a slice of another one.
            let changed = try await RawClient.send(
                port: server.port, "/range/1000",
                headers: [("Range", "bytes=990-"), ("If-Range", "\"other\"")])
            #expect(changed.status == 200)
            #expect(changed.body.count == 1000)
            let byDate = try await RawClient.send(
                port: server.port, "/range/1000",
                headers: [("Range", "bytes=0-0"), ("If-Range", try #require(whole.header("Last-Modified")))])
            #expect(byDate.status == 206)
            let past = try await RawClient.send(
                port: server.port, "/range/1000", headers: [("Range", "bytes=1000-")])
            #expect(past.status == 416)
            #expect(past.header("Content-Range") == "bytes */1000")
            let several = try await RawClient.send(
                port: server.port, "/range/1000", headers: [("Range", "bytes=0-1,5-6")])
            #expect(several.status == 200)
            let seeded = try await RawClient.send(port: server.port, "/range/1000?seed=2")
            #expect(seeded.header("ETag") != etag)
        }
    }

    @Test func aStubThatAcceptsRangesIsSlicedAndKeepsItsFault() async throws {
        let json = """
            { "mappings": [ { "request": { "method": "GET", "urlPath": "/file" },
              "response": { "headers": { "Accept-Ranges": "bytes", "ETag": "\\"v1\\"" },
                            "body": "0123456789",
                            "fault": { "name": "closeMidBody", "afterBytes": 2 } } } ] }
            """
        try await withServer(json) { server async throws in
            let cut = try await RawClient.send(port: server.port, "/file", headers: [("Range", "bytes=4-")])
            #expect(cut.status == 206)
            #expect(cut.header("Content-Range") == "bytes 4-9/10")
            #expect(cut.body == Array("45".utf8))
            #expect(!cut.complete)
        }
    }

    /// A stub's unchanged answer is sent from bytes made once; a range, a
    /// delay or `Connection: close` still shape the answer per request.
    @Test func aPreparedAnswerStillHonoursRangesAndClose() async throws {
        let json = """
            { "mappings": [ { "request": { "method": "GET", "urlPath": "/file" },
              "response": { "headers": { "Accept-Ranges": "bytes" }, "body": "0123456789" } } ] }
            """
        try await withServer(json) { server async throws in
            let requests =
                RawClient.request("GET", "/file", close: false)
                + RawClient.request("GET", "/file", headers: [("Range", "bytes=2-4")], close: false)
                + RawClient.request("GET", "/file", close: false) + RawClient.request("GET", "/file")
            let exchange = try await RawClient.exchange(port: server.port, requests)
            #expect(exchange.ending == .eof)
            let answers = exchange.text.components(separatedBy: "HTTP/1.1 ").dropFirst().map {
                "HTTP/1.1 " + $0
            }
            try #require(answers.count == 4)
            let whole =
                "HTTP/1.1 200 OK\r\nAccept-Ranges: bytes\r\nContent-Length: 10\r\n"
                + "Connection: keep-alive\r\n\r\n0123456789"
            #expect(answers[0] == whole)
            #expect(answers[1].hasPrefix("HTTP/1.1 206 Partial Content\r\n"))
            #expect(answers[1].contains("Content-Range: bytes 2-4/10\r\n"))
            #expect(answers[1].hasSuffix("\r\n\r\n234"))
            #expect(answers[2] == whole)
            #expect(answers[3].contains("Connection: close\r\n"))
            #expect(answers[3].hasSuffix("0123456789"))
            let journaled = server.journal.entries
            #expect(journaled.map(\.status) == [200, 206, 200, 200])
            #expect(journaled.map { $0.response?.header("Content-Length") } == ["10", "3", "10", "10"])
        }
    }
}
