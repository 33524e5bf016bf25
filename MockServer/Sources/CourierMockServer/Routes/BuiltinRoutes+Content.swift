import CompressNIO
import NIOCore

extension BuiltinRoutes {
    /// `/gzip`: the `/anything` echo, gzip-compressed with `Content-Encoding: gzip`.
    static func gzip(_ request: RecordedRequest) -> BuiltinAnswer {
        var plain = ByteBuffer(bytes: echo(request).jsonBytes)
        guard var compressed = try? plain.compress(with: .gzip()) else {
            return BuiltinAnswer(
                route: "/gzip",
                response: .json(.object(["error": .string("compression failed")]), status: 500))
        }
        let body = compressed.readBytes(length: compressed.readableBytes) ?? []
        return BuiltinAnswer(
            route: "/gzip",
            response: StubResponse(
                headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")], body: body))
    }

    /// The most bytes `/gzip-bomb/{n}` expands to.
    static let maxBombBytes = 256 * 1024 * 1024

    /// `/gzip-bomb/{n}`: a small gzip body (`Content-Encoding: gzip`, its
    /// compressed `Content-Length`) that decompresses to `n` zero bytes, at
    /// most 256 MiB: for testing limits on decoded bytes. `?status=302` (any
    /// 3xx) sends it as the body of a redirect to `/anything`.
    static func gzipBomb(_ count: String, _ request: RecordedRequest) -> BuiltinAnswer {
        guard let size = Int(count), size >= 0 else {
            return BuiltinAnswer(
                route: "/gzip-bomb/{n}", response: .json(.object(["error": .string("bad size")]), status: 400)
            )
        }
        var zeros = ByteBuffer(repeating: 0, count: min(size, maxBombBytes))
        guard var compressed = try? zeros.compress(with: .gzip()) else {
            return BuiltinAnswer(
                route: "/gzip-bomb/{n}",
                response: .json(.object(["error": .string("compression failed")]), status: 500))
        }
        let body = compressed.readBytes(length: compressed.readableBytes) ?? []
        var headers = [("Content-Type", "application/octet-stream"), ("Content-Encoding", "gzip")]
        let redirect = request.queryValue("status").flatMap(Int.init).flatMap {
            (300...399).contains($0) ? $0 : nil
        }
        if redirect != nil { headers.append(("Location", "/anything")) }
        return BuiltinAnswer(
            route: "/gzip-bomb/{n}",
            response: StubResponse(status: redirect ?? 200, headers: headers, body: body))
    }

    /// `/upload`: counts the body's bytes and returns their SHA-256.
    static func upload(_ request: RecordedRequest) -> BuiltinAnswer {
        let digest = SHA256Digest.hex(of: request.body)
        return BuiltinAnswer(
            route: "/upload",
            response: .json(.object(["bytes": .int(Int64(request.body.count)), "sha256": .string(digest)])))
    }
}
