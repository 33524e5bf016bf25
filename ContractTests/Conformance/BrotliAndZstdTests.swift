@_spi(Transport) import CourierCore
import CourierMockServer
import Foundation
import Testing

/// `br` (RFC 7932) and `zstd` (RFC 8878) bodies over every transport: decoded
/// whole, several zstd frames as one body, the two stacked, and a corrupt one
/// a typed error. CurlTransport and AsyncHTTPClientTransport decode with
/// Courier's `ContentDecoder` and ask for both codings; URLSession decodes
/// with FoundationNetworking's libcurl, which Debian builds with both.
///
/// The bodies are one 3,462-byte JSON document, coded with libbrotlienc
/// (quality 11) and the `zstd` tool (level 19; the frames case codes its
/// first 1,500 bytes and the rest as two frames); the expected digest is the
/// document's.
struct BrotliAndZstdTests {
    static let length = 3462
    static let digest = "6b2342e6d60e1a07eff54e3858e5660d239b3dd721cf3fcc227974d326287bb8"

    static let stubs = #"""
        {"mappings": [
          {"id": "br", "request": {"urlPath": "/br"},
           "response": {"headers": {"Content-Encoding": "br"},
                        "base64Body": "G4UNkJwHxi3zLowEZ035V2FOW6Dyp5dPC1BapafkMoTNpSrLTR\#
        UM5zy8WXS6+oYL/KvL4vieEmLIMldKoaUB2s3i1c/WjLQQH1S6WLihpqFUEg+OfxSiIVnHZxzxXPy5/av6cf/qvcN7\#
        fNSfJff67YfzZHivtOH+I+p5x/msX2neojKevvq3A72x173ae+kPbgDGutcvb/GdgQo/+MIvbqBUVY6BW1z15GCU4T\#
        ZfQVJTbwy2Zavur4NT7hT6uqzr2HK1OWxSt/QI7VvSaF2NteWy24nJHPoupCzNpchJDhukUacCft+kkJMIJ62yBCjp\#
        5MMZDdQoFH+dBroLjVMaQDfAXIqYxbBRkqKaZwXJqgk0LsOQM/NElCIFr6SVF2ekazqc02B1sZjLFrXcOKNBjCE4lb\#
        NATOGCOkhSxbyQJDeZwCiNNNQOUuTgjbRNi3PSSYdTGqpeFbWNhnqMmmCnIfQIrBlFTGZgktSkqh0lSyZMkEYe5lKU\#
        rHgnrbIVRkmnHmGMhmuMi3qchrvLjVMaRreB+7tOIlncnQOkJJW5CznZu3OAJmdOMwqUlMQoadUlxEjXdGw6H/YD"}},
          {"id": "zstd", "request": {"urlPath": "/zstd"},
           "response": {"headers": {"Content-Encoding": "zstd"},
                        "base64Body": "KLUv/WSGDN0QAEZZPhmATTqqgJECYhgQSMjpkuy9k0xpE4rEQN\#
        UDRwAvAC8AAtsn6KEC1b4CGipAXqBiBOYqcVhEIBUgVKEGVxJFYVKBMoCrRKPgQCyKMriSNBKTRVGuCpMCogLFeNSV\#
        QtKogLlKIB6HogS1Xl23bXtl2ZqaXhcubGLiFRGxh4fH86TReDRNluWRJGloeFwWppQQQuec/2aHAq/V7jTajRk7W7\#
        zYkpPPkJHt+Pjsvs1sPrNtq+szTdvY+Lx0qVNTz6ioPj09v68tlQqhciQwWr4cpacfQkdH5+d3/v/Y7Xd8//T9HZ4/\#
        5uZ3FlvsJEt2R4bsx47db7ebmd1ttoC1qBGQcauw/4wBoCSSEX0RJAQJAQIVEFUgsRhmPC+gZUEYRZ+Br4fTLoxnLW\#
        OvQs8CGCun2denyzoMp54Br0HTDoxrl/FXx2chjJOmmddRyxoMq8/A18NpF8azlrFXoWcBjJXT7OvTZR2GU8+A16Bp\#
        B8a1y/ir47MQxknTzOuoZQ2G1Wfg6+G0C+NZy9ir0LMAxspp9vXpsg7DqWfAa9C0A+PaZfzV8VkI46Rp5nXUsgbD6j\#
        Pw9XDahfGsZexV6FkAY+U0+5rnNDmHsctoOfBiARMzA5vbaXD+YscoHISxC6ZhpjXjFG62YosxN8Iu8jJPTrtZUxaZ\#
        3Z6UhoumqrO7PTk3tq2pD3jvF9/lcnDQNHOXxT3ESgF1Dfh1AFoFH2BTyA=="}},
          {"id": "zstd-frames", "request": {"urlPath": "/zstd-frames"},
           "response": {"headers": {"Content-Encoding": "zstd"},
                        "base64Body": "KLUv/WTcBNUJADKKHRpwxzoeX1PhNd6BnygBVaXdBXfLImjmVd\#
        WDAQ87Mju7Wl9XV/9/309Pf+/O3b5t27Zt234v2TnXWiMIgjG2VkNKKfSi+bMjD5p2PgkVycHQFDQWiU2zCQB7KLFg\#
        JHUCsIxyNEkd2NhEo1nCUliEUZoJ9jCWok5pqFF5OYXCsN8BsEIhQTsRMAhCQBCGYlBMdQN8grN7jsRW3IVMw3nRfl\#
        DLFvsmZ/c5qm386U0zYRjpNlvYslK+sZPPHVhtx6cVr9seUh7ZZAYG2wjWoC+fvfYOkY4kZhoGiEb0DHbw2Wu1ELHI\#
        EyZhkIzwGMThv9bQFVKrCODiFUoiawQnd9jXCHHwNBy7S5hKGc6OnNC+wwFT/v0ucsraNM/SXRea5n2XvvrykJqY8t\#
        LnduoKqSOgDgr8a4vSsWgV5dSR7yi1L/1kqgaVCgCyDCIakCnpF/cD52iDoIWo/mMhW0qZUpL3PlaamdFJUmB6Oubz\#
        iMfjXf6/7/e93Y6OfufnKV0mGn0+37dt17XZfGTkHx+nlInFXq9+Xxu5bY+t1kRFxdNTM5fSMc9EU8TkxkrUUUAODK\#
        oUVahSAlXKqACiEAiMQ5U6AzAcB6SIOgxGQZUzogaQSigBgIWogT2+/r8BEGOIyA4RIAhBgkA4ZzULpqVpDlYSVKQU\#
        XdcAP2vibEiH4im0z+t27+jpRb+wjsufe47t5237d9T0FsEYGC9/8/9R8LwyuwyJ6U2/sI7Ln3uO7edt+3d0esswrK\#
        PL/zzu/vOyHTvU9B69GBgtv9az631etucSNr1oGC5Gy888/OXzut072vRGQsDCcbneuYOAcxmy3QTxbQwGfcjTEOeO\#
        kvllzN6EdKovvu5PR4x79httMFDM7BzfsaKwAYtVARji+KY="}},
          {"id": "zstd-then-br", "request": {"urlPath": "/zstd-then-br"},
           "response": {"headers": {"Content-Encoding": "zstd, br"},
                        "base64Body": "CxSBKLUv/WSGDN0QAEZZPhmATTqqgJECYhgQSMjpkuy9k0xpE4\#
        rEQNUDRwAvAC8AAtsn6KEC1b4CGipAXqBiBOYqcVhEIBUgVKEGVxJFYVKBMoCrRKPgQCyKMriSNBKTRVGuCpMCogLF\#
        eNSVQtKogLlKIB6HogS1Xl23bXtl2ZqaXhcubGLiFRGxh4fH86TReDRNluWRJGloeFwWppQQQuec/2aHAq/V7jTajR\#
        k7W7zYkpPPkJHt+Pjsvs1sPrNtq+szTdvY+Lx0qVNTz6ioPj09v68tlQqhciQwWr4cpacfQkdH5+d3/v/Y7Xd8//T9\#
        HZ4/5uZ3FlvsJEt2R4bsx47db7ebmd1ttoC1qBGQcauw/4wBoCSSEX0RJAQJAQIVEFUgsRhmPC+gZUEYRZ+Br4fTLo\#
        xnLWOvQs8CGCun2denyzoMp54Br0HTDoxrl/FXx2chjJOmmddRyxoMq8/A18NpF8azlrFXoWcBjJXT7OvTZR2GU8+A\#
        16BpB8a1y/ir47MQxknTzOuoZQ2G1Wfg6+G0C+NZy9ir0LMAxspp9vXpsg7DqWfAa9C0A+PaZfzV8VkI46Rp5nXUsg\#
        bD6jPw9XDahfGsZexV6FkAY+U0+5rnNDmHsctoOfBiARMzA5vbaXD+YscoHISxC6ZhpjXjFG62YosxN8Iu8jJPTrtZ\#
        UxaZ3Z6UhoumqrO7PTk3tq2pD3jvF9/lcnDQNHOXxT3ESgF1Dfh1AFoFH2BTyAM="}},
          {"id": "zstd-wide-window", "request": {"urlPath": "/zstd-wide-window"},
           "response": {"headers": {"Content-Encoding": "zstd"},
                        "base64Body": "KLUv/QRwrREA5hIyG5A36RY1HMSOjZqsBab+YyF7y51kSjtBlv\#
        0frDkAJQAjAAYxSS0GxIFBHYVSipCUQkBZ1FEGIKkloRAcEMUgJKVILAtEMZJSFsqhjhooqKQEFIk6TFLLocBQjG3L\#
        sqamKRWhkiVJkiRJkikRIXR355z/ZofYRmqoo30RBtRBHo2102g3ZiwlhM7n4+P7NpvNtq2uadrYOCWErlefnr6vrV\#
        bXDY1GofFDnBJCd7/f+fn/2+2+3/c8f8zNUzoInZ0dO3a7mZnZbLWA7qiBUS2F/WcM4EKhqR4RJAgBgkA4aDWTba8l\#
        wyz/O9wgPH9q+0uYdhzWQ5blgvdE+nPbbjN6mrJXAcnyp46owPOX7YnGtGNYH7aXS7wX0z23bPchbJrr15bA8kdHNP\#
        Dz1/ZmO+0YLAGt5SoeWcVzn91ElGnKrx+mll93PIw/P9leJjftE1YXkuWSB876uc1uImqaslcByfKnjqiA5++2PFvT\#
        jmF92F4u8Z5QPbfZTURNU/YqGNzyv8MNwvPXNnZp2jGsD9vLJd4TKs+t7Tyjpyl7FZAsf+qICjx/2Z5oph2DJaC1XM\#
        Wjne+5MowfYqaxF5N75OfRJCfC6jakrqFZnr6Ud8jQoTAvwvRIQ/4MT/DkS28LaRYS4RWmKENyDM/wZEuPFfKrQsHd\#
        V5pJCDjCkHvL8eB1PPW8obubZpBNtucUR0d40fR5At3yKWf9MBai6gWRdVV6jlqI0SCVNUglYxWrugN+HSBXAR9gU8\#
        g="}},
          {"id": "br-bomb", "request": {"urlPath": "/br-bomb"},
           "response": {"headers": {"Content-Encoding": "br"},
                        "base64Body": "z///f/gnAOKxQCD3/p/////wTwDEYQGA7v0/////4Z8AiMMiAN\#
        37//z//8c/ARCHBQC69/8="}},
          {"id": "zstd-bomb", "request": {"urlPath": "/zstd-bomb"},
           "response": {"headers": {"Content-Encoding": "zstd"},
                        "base64Body": "KLUv/QRoTAAACAABAPz/ORACAgAQAAIAEAACABAAAgAQAAIAEA\#
        ACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQ\#
        AAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACAB\#
        AAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIA\#
        EAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAg\#
        AQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAAC\#
        ABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAA\#
        IAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAA\#
        AgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEA\#
        ACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQ\#
        AAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACAB\#
        AAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIA\#
        EAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAg\#
        AQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAAC\#
        ABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAA\#
        IAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAARAAAAAEA/f/MCxAC\#
        ABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAA\#
        IAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAA\#
        AgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEA\#
        ACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQ\#
        AAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACAB\#
        AAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIA\#
        EAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAg\#
        AQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAAC\#
        ABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAA\#
        IAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAA\#
        AgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEA\#
        ACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQ\#
        AAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACAB\#
        AAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIA\#
        EAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAg\#
        AQAAIAEAABAACnDyV8"}},
          {"id": "bad-br", "request": {"urlPath": "/bad-br"},
           "response": {"headers": {"Content-Encoding": "br"},
                        "base64Body": "G////25vdCBicm90bGkgYXQgYWxsLCBqdXN0IGJ5dGVz"}}
        ]}
        """#

    @Test(arguments: TransportKind.allCases)
    func brAndZstdBodiesArriveDecoded(kind: TransportKind) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let client = APIClient(configuration: .init(transport: kind.transport, timeout: hangGuard))
            let node = Node("mock", baseURL: server.baseURL)
            let paths: [RoutePath] = ["br", "zstd", "zstd-frames", "zstd-then-br"]
            for path in paths {
                let response = try await client.send(Endpoint<RawResponse>(.get(path), on: node))
                let body = response.body.bytes ?? []
                var hasher = SHA256Digest()
                hasher.update(body)
                #expect(body.count == Self.length, "\(kind) /\(path)")
                #expect(hasher.finalizeHex() == Self.digest, "\(kind) /\(path)")
            }
            if kind != .urlSession {
                let asked = server.journal.entries.first?.request.header("Accept-Encoding") ?? ""
                #expect(asked == "gzip, deflate, br, zstd", "\(kind): \(asked)")
            }
        }
    }

    /// A zstd frame that asks for a 16 MiB window (more than RFC 9659's
    /// 8 MiB) is refused, not allocated, by Courier's decoder.
    @Test(arguments: TransportKind.among(.curl, .curlPollLoop, .asyncHTTPClient))
    func aZstdWindowOverEightMiBIsRefused(kind: TransportKind) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let client = APIClient(configuration: .init(transport: kind.transport, timeout: hangGuard))
            let endpoint = Endpoint<RawResponse>(
                .get("zstd-wide-window"), on: Node("mock", baseURL: server.baseURL))
            do throws(CourierError) {
                _ = try await client.send(endpoint)
                Issue.record("\(kind): a 16 MiB zstd window was accepted")
            } catch {
                #expect("\(error)".contains("not valid zstd"), "\(kind): \(error)")
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aCorruptBrBodyIsATypedError(kind: TransportKind) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let client = APIClient(configuration: .init(transport: kind.transport, timeout: hangGuard))
            do throws(CourierError) {
                _ = try await client.send(
                    Endpoint<RawResponse>(.get("bad-br"), on: Node("mock", baseURL: server.baseURL)))
                Issue.record("\(kind): a corrupt br body was accepted")
            } catch {
                #expect(error.code == .transport, "\(kind): \(error)")
                if kind != .urlSession {
                    #expect("\(error)".contains("not valid br"), "\(kind): \(error)")
                }
            }
        }
    }

    /// 64 MiB of zeros in 53 bytes of br and in 2 KB of zstd: each stops at
    /// the body limit, counted on decoded bytes, on every transport — in
    /// memory and, where the transport writes files, to disk (the partial
    /// file removed).
    @Test(arguments: TransportKind.allCases)
    func brAndZstdBombsStopAtTheLimit(kind: TransportKind) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bombs-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            for path in ["/br-bomb", "/zstd-bomb"] {
                await expectTransportError(.bodyTooLarge, "\(kind) \(path) in memory") {
                    try await kind.transport.send(
                        request(server, path), options: .init(maxBodySize: 1_000_000))
                }
                let destination = DownloadTarget(folder.appendingPathComponent(String(path.dropFirst())))
                await expectTransportError(.bodyTooLarge, "\(kind) \(path) to disk") {
                    try await kind.transport.send(
                        request(server, path),
                        options: .init(destination: destination, maxDownloadSize: 1_000_000))
                }
            }
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(left.isEmpty, "\(kind) left behind: \(left)")
        }
    }
}
