/// A named way for the server to misbehave on one exchange, below or around HTTP.
///
/// In contract files: `"fault": "resetBeforeHeaders"`, or an object with the
/// name and its parameters: `"fault": {"name": "closeMidBody", "afterBytes": 10}`.
/// What a client observes for each is listed in `MockServer/README.md`.
public enum MockFault: Sendable, Hashable {
    /// Close with TCP RST (SO_LINGER 0) before any response byte.
    case resetBeforeHeaders
    /// Close cleanly (FIN) before any response byte: an empty response.
    case closeBeforeHeaders
    /// Send `bytes` pseudo-random bytes (from `seed`), then close.
    case garbageThenClose(bytes: Int, seed: UInt64)
    /// Read the request, never answer, keep the connection open.
    case stall
    /// Start a chunked 200 response, then send an invalid chunk-size line.
    case malformedChunk
    /// Declare the full length, send `afterBytes` of the body, close cleanly.
    case closeMidBody(afterBytes: Int)
    /// Declare the full length, send `afterBytes` of the body, reset.
    case resetMidBody(afterBytes: Int)
    /// Declare `extra` more bytes than the body has, send the body, close.
    case contentLengthMismatch(extra: Int)
    /// Declare the full length, send `afterBytes`, then never send the rest.
    case stallMidBody(afterBytes: Int)
    /// Wait `delayMs` before sending the status line.
    case slowHeaders(delayMs: Int)
    /// Send the body `bytes` at a time, every `perMs`.
    case throttleBody(bytes: Int, perMs: Int)
    /// Send the body chunked, in `chunks` chunks spread over `overMs`.
    case dribble(chunks: Int, overMs: Int)
    /// Answer as soon as the head arrives, then half-close and discard the body unread.
    case doNotReadRequestBody
    /// Close the connection as soon as request body bytes arrive.
    case closeDuringRequestBody
    /// Send the response, then shut down the server's output (FIN), keeping input open.
    case halfCloseOutput
    /// Shut down the server's input, then send the response.
    case halfCloseInput
    /// Send the response without announcing `Connection: close`, then close.
    case closeAfterResponse
    /// Send two different `Content-Length` headers.
    case duplicateContentLength
    /// Send `Content-Length` and `Transfer-Encoding: chunked` together.
    case contentLengthAndChunked
    /// Send a status line that is not HTTP.
    case invalidStatusLine
    /// Send header fields totalling `bytes` bytes.
    case oversizedHeaders(bytes: Int)
    /// Send header fields until the client gives up.
    case endlessHeaders
    /// Send a chunked body that never ends.
    case endlessBody

    /// The fault's name as written in contract files.
    public var name: String {
        switch self {
        case .resetBeforeHeaders: "resetBeforeHeaders"
        case .closeBeforeHeaders: "closeBeforeHeaders"
        case .garbageThenClose: "garbageThenClose"
        case .stall: "stall"
        case .malformedChunk: "malformedChunk"
        case .closeMidBody: "closeMidBody"
        case .resetMidBody: "resetMidBody"
        case .contentLengthMismatch: "contentLengthMismatch"
        case .stallMidBody: "stallMidBody"
        case .slowHeaders: "slowHeaders"
        case .throttleBody: "throttleBody"
        case .dribble: "dribble"
        case .doNotReadRequestBody: "doNotReadRequestBody"
        case .closeDuringRequestBody: "closeDuringRequestBody"
        case .halfCloseOutput: "halfCloseOutput"
        case .halfCloseInput: "halfCloseInput"
        case .closeAfterResponse: "closeAfterResponse"
        case .duplicateContentLength: "duplicateContentLength"
        case .contentLengthAndChunked: "contentLengthAndChunked"
        case .invalidStatusLine: "invalidStatusLine"
        case .oversizedHeaders: "oversizedHeaders"
        case .endlessHeaders: "endlessHeaders"
        case .endlessBody: "endlessBody"
        }
    }

    /// Faults decided on the request head alone, before the body is read.
    var actsOnRequestBody: Bool {
        switch self {
        case .doNotReadRequestBody, .closeDuringRequestBody: true
        default: false
        }
    }

    /// Every fault name, for error messages and documentation.
    public static let allNames = [
        "resetBeforeHeaders", "closeBeforeHeaders", "garbageThenClose", "stall", "malformedChunk",
        "closeMidBody",
        "resetMidBody", "contentLengthMismatch", "stallMidBody", "slowHeaders", "throttleBody", "dribble",
        "doNotReadRequestBody", "closeDuringRequestBody", "halfCloseOutput", "halfCloseInput",
        "closeAfterResponse",
        "duplicateContentLength", "contentLengthAndChunked", "invalidStatusLine", "oversizedHeaders",
        "endlessHeaders", "endlessBody",
    ]

    static func parse(_ value: JSONValue, file: String, path: String) throws(ContractError) -> MockFault {
        let name: String
        var reader: ContractReader?
        switch value {
        case .string(let text):
            name = text
        case .object(let object):
            guard case .string(let text) = object["name"] else {
                throw ContractError(file: file, path: path + ".name", message: "a fault object needs a name")
            }
            name = text
            reader = try ContractReader(
                file: file, path: path, value: value,
                allowed: [
                    "name", "afterBytes", "extra", "delayMs", "bytes", "perMs", "chunks", "overMs", "seed",
                ])
        default:
            throw ContractError(file: file, path: path, message: "expected a fault name or object")
        }
        func int(_ key: String, default fallback: Int) throws(ContractError) -> Int {
            try reader?.int(key, in: 0...1_073_741_824) ?? fallback
        }
        switch name {
        case "resetBeforeHeaders": return .resetBeforeHeaders
        case "closeBeforeHeaders": return .closeBeforeHeaders
        case "garbageThenClose":
            return .garbageThenClose(
                bytes: try int("bytes", default: 64), seed: UInt64(try int("seed", default: 1)))
        case "stall": return .stall
        case "malformedChunk": return .malformedChunk
        case "closeMidBody": return .closeMidBody(afterBytes: try int("afterBytes", default: 1))
        case "resetMidBody": return .resetMidBody(afterBytes: try int("afterBytes", default: 1))
        case "contentLengthMismatch":
            return .contentLengthMismatch(extra: max(1, try int("extra", default: 10)))
        case "stallMidBody": return .stallMidBody(afterBytes: try int("afterBytes", default: 1))
        case "slowHeaders": return .slowHeaders(delayMs: try int("delayMs", default: 200))
        case "throttleBody":
            return .throttleBody(
                bytes: max(1, try int("bytes", default: 16)), perMs: try int("perMs", default: 10))
        case "dribble":
            return .dribble(
                chunks: max(1, try int("chunks", default: 4)), overMs: try int("overMs", default: 100))
        case "doNotReadRequestBody": return .doNotReadRequestBody
        case "closeDuringRequestBody": return .closeDuringRequestBody
        case "halfCloseOutput": return .halfCloseOutput
        case "halfCloseInput": return .halfCloseInput
        case "closeAfterResponse": return .closeAfterResponse
        case "duplicateContentLength": return .duplicateContentLength
        case "contentLengthAndChunked": return .contentLengthAndChunked
        case "invalidStatusLine": return .invalidStatusLine
        case "oversizedHeaders": return .oversizedHeaders(bytes: max(1, try int("bytes", default: 1_048_576)))
        case "endlessHeaders": return .endlessHeaders
        case "endlessBody": return .endlessBody
        default:
            throw ContractError(
                file: file, path: path,
                message: "unknown fault \"\(name)\" (known: \(allNames.joined(separator: ", ")))")
        }
    }
}

extension MockFault {
    /// Whether the fault acts on a streamed body (event stream, NDJSON):
    /// re-cutting it, or ending it after so many bytes.
    var appliesToStreams: Bool {
        switch self {
        case .dribble, .closeMidBody, .resetMidBody, .stallMidBody: true
        default: false
        }
    }

    /// The faults a streamed body takes, for an error message.
    static let streamFaults =
        "a stream takes dribble, closeMidBody, resetMidBody or stallMidBody (or its own dropAfter…)"
}
