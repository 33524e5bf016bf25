@_spi(Transport) import CourierCore
import CourierCurl
import CourierMockServer
import Foundation
import HTTPTypes
import Testing

/// Content codings (RFC 9110 §8.4) over every transport: what each decodes,
/// and what it hands over as it came — an unknown coding must not cost the
/// caller the status and the body.
struct ContentCodingTests {
    /// Bodies made with Python's `zlib` and `gzip` modules.
    static let stubs = #"""
        {"mappings": [
          {"id": "unknown", "request": {"urlPath": "/unknown"},
           "response": {"headers": {"Content-Encoding": "x-squeeze"}, "body": "squeezed, or so it says"}},
          {"id": "known-then-unknown", "request": {"urlPath": "/known-then-unknown"},
           "response": {"headers": {"Content-Encoding": "gzip, x-squeeze"},
                        "base64Body": "H4sIAAAAAAACA0uvyizQUSjJSM1TSFRIzk/JzEtXyMtPyk+pVMjOyy8vBgAgyMwJIAAAAA=="}},
          {"id": "raw-deflate", "request": {"urlPath": "/raw-deflate"},
           "response": {"headers": {"Content-Encoding": "deflate"},
                        "base64Body": "S1QoSixXSElNy0ksSVVIyk+p1FHIy1eoyslMUshITUxJLQIA"}},
          {"id": "zlib-deflate", "request": {"urlPath": "/zlib-deflate"},
           "response": {"headers": {"Content-Encoding": "deflate"},
                        "base64Body": "eJxLVKjKyUzSLS9KLChITVFISU3LSSxJVUjKT6kEAItKChY="}},
          {"id": "twice", "request": {"urlPath": "/twice"},
           "response": {"headers": {"Content-Encoding": "gzip, gzip"},
                        "base64Body": "H4sIAAAAAAACA5Pv5mCw38iZzfTf+5y/p2+ghuZ5H7+rgRpnvU+e9279wHDwtr26JAMDAwBYyFKVKAAAAA=="}},
          {"id": "six-times", "request": {"urlPath": "/six-times"},
           "response": {"headers": {"Content-Encoding": "gzip, gzip, gzip, gzip, gzip, gzip"},
                        "base64Body": "H4sIAAAAAAACAwFnAJj/H4sIAAAAAAACA5Pv5mAAASbmye+fJTAwqj07+X6+qoHBKlvrn3X7VjUeXLW0uvT8UsnaOX//JoddU7u+8vyZufuNDDa9zZ1+b9atHV2OL7Z8zrFdYMYgkZL1xx5oEgC8hZ0tUgAAAPYhpepnAAAA"}},
          {"id": "cut", "request": {"urlPath": "/cut"},
           "response": {"headers": {"Content-Encoding": "gzip"}, "base64Body": "H4sIAAAAAAACA6uoGAWjYBSMglEw"}}
        ]}
        """#

    func withCodings(_ body: (MockServer) async throws -> Void) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in try await body(server) }
    }

    /// An unknown coding: the status, the field and the bytes as sent.
    /// FoundationNetworking decodes with libcurl and cannot be told not to,
    /// so URLSession on Linux fails as libcurl does (its README says so).
    @Test(arguments: TransportKind.allCases)
    func anUnknownCodingIsHandedOverAsItCame(kind: TransportKind) async throws {
        try await withCodings { server in
            let gzipped = Data(
                base64Encoded: "H4sIAAAAAAACA0uvyizQUSjJSM1TSFRIzk/JzEtXyMtPyk+pVMjOyy8vBgAgyMwJIAAAAA==")
            for (path, coding, sent) in [
                ("/unknown", "x-squeeze", Array("squeezed, or so it says".utf8)),
                ("/known-then-unknown", "gzip, x-squeeze", Array(gzipped ?? Data())),
            ] {
                #if os(Linux)
                    if kind == .urlSession {
                        await expectTransportError(.protocolError, "urlSession \(path)") {
                            try await kind.transport.send(request(server, path), options: .guarded)
                        }
                        continue
                    }
                #endif
                let response = try await kind.transport.send(request(server, path), options: .guarded)
                #expect(response.statusCode == 200, "\(kind) \(path)")
                #expect(response.headerFields[.contentEncoding] == coding, "\(kind) \(path)")
                #expect(response.body.bytes == sent, "\(kind) \(path)")
            }
        }
    }

    /// `deflate` with its zlib wrapper (RFC 9110 §8.4.1.2) and without, as
    /// some servers send it.
    @Test(arguments: TransportKind.allCases)
    func deflateIsDecodedWrappedOrRaw(kind: TransportKind) async throws {
        try await withCodings { server in
            for (path, text) in [
                ("/zlib-deflate", "a zlib-wrapped deflate body"),
                ("/raw-deflate", "a raw deflate body, no zlib header"),
            ] {
                let response = try await kind.transport.send(request(server, path), options: .guarded)
                #expect(String(decoding: response.body.bytes ?? [], as: UTF8.self) == text, "\(kind) \(path)")
            }
        }
    }

    /// Codings applied one after another are undone in reverse (RFC 9110
    /// §8.4: listed in the order applied).
    @Test(arguments: TransportKind.allCases)
    func stackedCodingsAreUndoneInReverse(kind: TransportKind) async throws {
        try await withCodings { server in
            let response = try await kind.transport.send(request(server, "/twice"), options: .guarded)
            #expect(String(decoding: response.body.bytes ?? [], as: UTF8.self) == "coded twice, undone twice")
        }
    }

    /// A gzip stream cut short inside a body whose framing is whole: the
    /// body is not what the server meant to send. FoundationNetworking's
    /// libcurl hands over what it inflated, as if whole (its README says so).
    @Test(arguments: TransportKind.allCases)
    func aCodedStreamCutShortIsAProtocolError(kind: TransportKind) async throws {
        try await withCodings { server in
            #if os(Linux)
                if kind == .urlSession {
                    let response = try await kind.transport.send(request(server, "/cut"), options: .guarded)
                    #expect(response.statusCode == 200)
                    return
                }
            #endif
            await expectTransportError(.protocolError, "\(kind) cut gzip") {
                try await kind.transport.send(request(server, "/cut"), options: .guarded)
            }
        }
    }

    static let zeroPage = [UInt8](repeating: 0, count: 64 << 10)

    /// Whether every byte is zero: one `memcmp` per 64 KiB. (A closure per
    /// byte, instrumented byte by byte under ThreadSanitizer, kept a thread of
    /// the concurrency pool busy for tens of seconds, and the tasks of the
    /// suites running beside this one waited for it.)
    static func allZero(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            zeroPage.withUnsafeBytes { zeros in
                guard let base = raw.baseAddress, let zero = zeros.baseAddress else { return true }
                var offset = 0
                while offset < raw.count {
                    let count = min(zeros.count, raw.count - offset)
                    if memcmp(base + offset, zero, count) != 0 { return false }
                    offset += count
                }
                return true
            }
        }
    }

    /// A streamed gzip body (64 MiB of zeros in 64 KiB) read by a reader
    /// that stops: decoded bytes cannot be offered again, so the buffer takes
    /// what one read decodes to and the transfer pauses; every byte then
    /// arrives, read as fast as the reader can. (A fast reader drains the
    /// buffer while a read is still being decoded into it: a transport that
    /// resumed on that earlier drain, with the buffer full again, held 28–43
    /// MiB here instead of one read's worth.)
    @Test(arguments: StreamingTests.loops)
    func aStreamedCodedBodyPausesForASlowReader(loop: CurlTransport.Configuration.EventLoop) async throws {
        let size = 64 << 20
        try await withMockServer { server async throws in
            try await withCurlTransport(configuration: .init(eventLoop: loop)) { transport async throws in
                let response = try await transport.stream(
                    request(server, "/gzip-bomb/\(size)"), options: .guarded)
                await response.body.holdingBack()
                #expect(response.body.isHoldingBack)
                var received = 0
                var zeros = true
                for try await chunk in response.body {
                    received += chunk.count
                    zeros = zeros && Self.allZero(chunk)
                }
                #expect(received == size)
                #expect(zeros)
                // At most the high-water mark plus one read (16 KiB of coded
                // bytes at most) decoded: far from the whole body.
                #expect(response.body.peakBufferedBytes < (1 << 20) + (16 << 10) * 1_100)
            }
        }
    }

    /// Six stacked codings: more than any decoder here undoes (curl's limit
    /// of five, CVE-2023-23916), a typed protocol error on every transport —
    /// not six layers of gzip handed over as if they were the body.
    @Test(arguments: TransportKind.allCases)
    func moreThanFiveStackedCodingsAreATypedError(kind: TransportKind) async throws {
        try await withCodings { server in
            await expectTransportError(.protocolError, "\(kind) six codings") {
                try await kind.transport.send(request(server, "/six-times"), options: .guarded)
            }
        }
    }
}
