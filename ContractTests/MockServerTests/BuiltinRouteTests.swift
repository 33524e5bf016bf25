import CompressNIO
import CourierMockServer
import Foundation
import NIOCore
import Testing

struct BuiltinRouteTests {
    @Test func anythingEchoes() async throws {
        try await withServer { server async throws in
            let response = try await RawClient.send(
                port: server.port, "/anything/x?a=1&b=two%20words", method: "POST",
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("X-One", "1")],
                body: Array("name=Ada+L&k=v".utf8))
            let echo = try JSONValue.parse(response.body)
            guard case .object(let object) = echo else { throw RawClientError("not an object") }
            #expect(object["method"] == .string("POST"))
            #expect(object["args"] == .object(["a": .string("1"), "b": .string("two words")]))
            #expect(object["form"] == .object(["name": .string("Ada L"), "k": .string("v")]))
            #expect(echo.description.contains(#"["X-One","1"]"#))
        }
    }

    @Test func statusDelayBytesAndStream() async throws {
        try await withServer { server async throws in
            #expect(try await RawClient.send(port: server.port, "/status/418").status == 418)
            #expect(try await RawClient.send(port: server.port, "/status/999").status == 400)
            #expect(try await RawClient.send(port: server.port, "/delay/5").status == 200)
            let bytes = try await RawClient.send(port: server.port, "/bytes/1000")
            let again = try await RawClient.send(port: server.port, "/bytes/1000")
            #expect(bytes.body.count == 1000)
            #expect(bytes.body == again.body)
            #expect(Set(bytes.body).count > 100)
            let seeded = try await RawClient.send(port: server.port, "/bytes/64?seed=9")
            #expect(seeded.body != Array(bytes.body.prefix(64)))
            let stream = try await RawClient.send(port: server.port, "/stream/3")
            #expect(stream.header("Transfer-Encoding") == "chunked")
            #expect(stream.complete)
            #expect(stream.bodyText.split(separator: "\n").count == 3)
        }
    }

    @Test func redirects() async throws {
        try await withServer { server async throws in
            let first = try await RawClient.send(port: server.port, "/redirect/2")
            #expect(first.status == 302)
            #expect(first.header("Location") == "/redirect/1")
            #expect(
                try await RawClient.send(port: server.port, "/redirect/1").header("Location") == "/anything")
            let to = try await RawClient.send(
                port: server.port, "/redirect-to?url=http%3A%2F%2Fexample.com%2Fx&status=307")
            #expect(to.status == 307)
            #expect(to.header("Location") == "http://example.com/x")
            #expect(try await RawClient.send(port: server.port, "/redirect-to").status == 400)
        }
    }

    @Test func cacheRevalidation() async throws {
        try await withServer { server async throws in
            let fresh = try await RawClient.send(port: server.port, "/cache")
            let etag = try #require(fresh.header("ETag"))
            let lastModified = try #require(fresh.header("Last-Modified"))
            #expect(fresh.status == 200)
            #expect(
                try await RawClient.send(port: server.port, "/cache", headers: [("If-None-Match", etag)])
                    .status == 304)
            #expect(
                try await RawClient.send(
                    port: server.port, "/cache", headers: [("If-Modified-Since", lastModified)]
                ).status
                    == 304)
            #expect(
                try await RawClient.send(
                    port: server.port, "/cache", headers: [("If-None-Match", "\"other\"")]
                ).status == 200)
        }
    }

    @Test func authentication() async throws {
        try await withServer { server async throws in
            let good = "Basic " + Data("ada:secret".utf8).base64EncodedString()
            #expect(
                try await RawClient.send(
                    port: server.port, "/basic-auth/ada/secret", headers: [("Authorization", good)]
                ).status == 200)
            let denied = try await RawClient.send(
                port: server.port, "/basic-auth/ada/other", headers: [("Authorization", good)])
            #expect(denied.status == 401)
            #expect(denied.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
            let bearer = try await RawClient.send(
                port: server.port, "/bearer", headers: [("Authorization", "Bearer t0k")])
            #expect(bearer.bodyText.contains(#""token":"t0k""#))
            #expect(try await RawClient.send(port: server.port, "/bearer").status == 401)
        }
    }

    @Test func gzipAndUpload() async throws {
        try await withServer { server async throws in
            let zipped = try await RawClient.send(port: server.port, "/gzip")
            #expect(zipped.header("Content-Encoding") == "gzip")
            var buffer = ByteBuffer(bytes: zipped.body)
            let plain = try buffer.decompress(with: .gzip())
            #expect(String(buffer: plain).contains(#""path":"/gzip""#))

            let payload = (0..<100_000).map { UInt8($0 % 241) }
            let upload = try await RawClient.send(port: server.port, "/upload", method: "POST", body: payload)
            // Computed independently (Python's hashlib), not with the server's own code.
            let digest = "0939a333f03f880ee7546dbdbb6ce7808b2c2f173b4585471b0b47e0b794724e"
            #expect(
                try JSONValue.parse(upload.body)
                    == .object(["bytes": .int(100_000), "sha256": .string(digest)]))
        }
    }

    @Test func gzipBombsExpandAndCanBeRedirects() async throws {
        try await withServer { server async throws in
            for (target, status) in [("/gzip-bomb/100000", 200), ("/gzip-bomb/100000?status=302", 302)] {
                let bomb = try await RawClient.send(port: server.port, target)
                #expect(bomb.status == status)
                #expect(bomb.header("Content-Encoding") == "gzip")
                #expect(bomb.header("Location") == (status == 302 ? "/anything" : nil))
                #expect(bomb.body.count < 1_000)
                var buffer = ByteBuffer(bytes: bomb.body)
                var plain = try buffer.decompress(with: .gzip())
                let bytes = plain.readBytes(length: plain.readableBytes) ?? []
                #expect(bytes.count == 100_000)
                #expect(bytes.allSatisfy { $0 == 0 })
            }
        }
    }
}

struct RobustnessTests {
    @Test(arguments: ["GARBAGE\r\n\r\n", "GET / HTTP/1.1\r\nBad Header\r\n\r\n", "\u{0}\u{1}\u{2}\r\n\r\n"])
    func malformedRequestsGet400AndTheServerKeepsServing(raw: String) async throws {
        try await withServer { server async throws in
            let seen = try await RawClient.exchange(port: server.port, Array(raw.utf8))
            #expect(seen.response?.status == 400)
            #expect(seen.ending == .eof)
            #expect(try await RawClient.send(port: server.port, "/status/200").status == 200)
        }
    }

    @Test func oversizedHeadsGet431() async throws {
        try await withServer { server async throws in
            let huge = "GET / HTTP/1.1\r\nX-Big: \(String(repeating: "a", count: 200_000))\r\n\r\n"
            let seen = try await RawClient.exchange(port: server.port, Array(huge.utf8))
            #expect(seen.response?.status == 431)
        }
    }

    @Test func bodiesOverTheLimitGet413() async throws {
        try await withMockServer(.init(maxRequestBodySize: 1000)) { server async throws in
            let response = try await RawClient.send(
                port: server.port, "/upload", method: "POST", body: [UInt8](repeating: 1, count: 5000))
            #expect(response.status == 413)
            #expect(server.journal.entries.first?.status == 413)
            #expect(try await RawClient.send(port: server.port, "/status/200").status == 200)
        }
    }

    @Test func randomGarbageNeverStopsTheServer() async throws {
        try await withServer { server async throws in
            for seed in 1...30 {
                var generator = SystemRandomNumberGenerator()
                let bytes = (0..<(seed * 37)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                _ = try? await RawClient.exchange(port: server.port, bytes, stopAfter: 1)
            }
            #expect(try await RawClient.send(port: server.port, "/status/204").status == 204)
        }
    }

    @Test func servesAThousandConcurrentConnections() async throws {
        try await withServer { server async throws in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<1000 {
                    group.addTask {
                        try await RawClient.send(port: server.port, "/status/\(200 + index % 5)").status
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.count == 1000)
            #expect(Set(statuses) == [200, 201, 202, 203, 204])
            let connections = Set(server.journal.entries.map(\.connectionIndex))
            #expect(connections.count == 1000)
        }
    }
}
