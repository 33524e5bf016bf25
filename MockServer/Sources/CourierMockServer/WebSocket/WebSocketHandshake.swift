import CLibCrypto
import Foundation

/// The server's half of the opening handshake (RFC 6455 §4.2): whether a
/// request asks to upgrade, and the `101` that accepts it.
enum WebSocketHandshake {
    /// The GUID RFC 6455 §1.3 appends to the client's key.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// What a request to a WebSocket stub gets.
    enum Verdict: Equatable {
        /// `101`, these response fields, then the conversation.
        case upgrade(fields: [(name: String, value: String)], subprotocol: String?)
        /// A refusal: status, fields and a reason for the body.
        case refused(status: Int, fields: [(name: String, value: String)], reason: String)

        static func == (lhs: Verdict, rhs: Verdict) -> Bool {
            switch (lhs, rhs) {
            case (.upgrade(let a, let p), .upgrade(let b, let q)):
                a.map(\.name) == b.map(\.name) && a.map(\.value) == b.map(\.value) && p == q
            case (.refused(let s, _, let r), .refused(let t, _, let u)): s == t && r == u
            default: false
            }
        }
    }

    /// Whether `request` may become the conversation `script` describes.
    static func verdict(for request: RecordedRequest, _ script: WebSocketScript) -> Verdict {
        let asks = tokens(request, "Upgrade").contains("websocket")
        guard asks else {
            return .refused(
                status: 426, fields: [("Upgrade", "websocket"), ("Connection", "Upgrade")],
                reason: "this resource speaks WebSocket: send Upgrade: websocket")
        }
        guard request.method == "GET", request.version == "HTTP/1.1" else {
            return .refused(status: 400, fields: [], reason: "a WebSocket handshake is a GET over HTTP/1.1")
        }
        guard tokens(request, "Connection").contains("upgrade") else {
            return .refused(status: 400, fields: [], reason: "a WebSocket handshake says Connection: Upgrade")
        }
        guard request.header("Sec-WebSocket-Version")?.trimmingCharacters(in: .whitespaces) == "13" else {
            return .refused(
                status: 426, fields: [("Sec-WebSocket-Version", "13")],
                reason: "only WebSocket version 13 is spoken")
        }
        guard let key = request.header("Sec-WebSocket-Key")?.trimmingCharacters(in: .whitespaces),
            Data(base64Encoded: key)?.count == 16
        else {
            return .refused(
                status: 400, fields: [], reason: "Sec-WebSocket-Key must be 16 random bytes in base64")
        }
        let offered = request.headerValues("Sec-WebSocket-Protocol")
            .flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        let chosen = script.subprotocols.first(where: offered.contains)
        var fields = [
            (name: "Upgrade", value: "websocket"), (name: "Connection", value: "Upgrade"),
            (name: "Sec-WebSocket-Accept", value: accept(key)),
        ]
        if let chosen { fields.append((name: "Sec-WebSocket-Protocol", value: chosen)) }
        return .upgrade(fields: fields, subprotocol: chosen)
    }

    /// `Sec-WebSocket-Accept` for `key`: base64 of SHA-1 of the key and the GUID.
    static func accept(_ key: String) -> String {
        let input = Array((key + guid).utf8)
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = input.withUnsafeBytes { bytes in
            EVP_Digest(bytes.baseAddress, bytes.count, &output, &length, EVP_sha1(), nil)
        }
        return Data(output.prefix(Int(length))).base64EncodedString()
    }

    /// The comma-separated tokens of every `name` field, lowercased.
    private static func tokens(_ request: RecordedRequest, _ name: String) -> [String] {
        request.headerValues(name).flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }
}
