/// One answer a stub gives: status, headers, body, delay and fault.
public struct StubResponse: Sendable, Hashable {
    /// How long to wait before answering.
    public enum Delay: Sendable, Hashable {
        /// Always this long.
        case fixed(milliseconds: Int)
        /// Uniformly between the bounds, from a seeded generator so runs repeat.
        case uniform(lowerMs: Int, upperMs: Int, seed: UInt64)
    }

    /// The status code.
    public var status: Int
    /// Header fields in order.
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: [UInt8]
    /// The delay before answering, if any.
    public var delay: Delay?
    /// The fault to apply, if any.
    public var fault: MockFault?
    /// Server-sent events instead of a body, if any.
    public var eventStream: EventStream?
    /// A streamed NDJSON body instead of a body, if any.
    public var ndjson: NDJSONStream?
    /// A WebSocket conversation instead of a body, if any: a request that
    /// asks to upgrade gets `101` and the script.
    public var webSocket: WebSocketScript?

    /// Creates a response.
    public init(
        status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
        delay: Delay? = nil,
        fault: MockFault? = nil, eventStream: EventStream? = nil, ndjson: NDJSONStream? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.fault = fault
        self.eventStream = eventStream
        self.ndjson = ndjson
    }

    /// A JSON response.
    public static func json(_ value: JSONValue, status: Int = 200) -> StubResponse {
        StubResponse(status: status, headers: [("Content-Type", "application/json")], body: value.jsonBytes)
    }

    /// A response that only applies a fault.
    public static func fault(_ fault: MockFault) -> StubResponse { StubResponse(fault: fault) }

    /// Equal when status, headers (in order), body, delay, fault and streams are.
    public static func == (lhs: StubResponse, rhs: StubResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.delay == rhs.delay && lhs.fault == rhs.fault
            && lhs.eventStream == rhs.eventStream && lhs.ndjson == rhs.ndjson
            && lhs.webSocket == rhs.webSocket
            && lhs.headers.count == rhs.headers.count
            && zip(lhs.headers, rhs.headers).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Hashes every field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(body)
        hasher.combine(delay)
        hasher.combine(fault)
        hasher.combine(eventStream)
        hasher.combine(ndjson)
        hasher.combine(webSocket)
        for header in headers {
            hasher.combine(header.name)
            hasher.combine(header.value)
        }
    }
}

/// Key names for envelope responses, matching the client's configurable envelope.
public struct EnvelopeKeys: Sendable, Hashable {
    /// The code's key.
    public var code: String
    /// The message's key.
    public var message: String
    /// The payload's key.
    public var data: String

    /// `code`, `msg`, `data` unless told otherwise.
    public init(code: String = "code", message: String = "msg", data: String = "data") {
        self.code = code
        self.message = message
        self.data = data
    }
}

/// Malformed envelopes, as gateways and buggy servers send them.
public enum EnvelopePreset: String, Sendable, CaseIterable {
    /// `{"msg": …, "data": …}`: no code.
    case missingCode
    /// `{"code": "0", …}`: the code as a string.
    case codeAsString
    /// `{"code": 0, "data": "not an object"}`: the payload has the wrong type.
    case dataWrongType
    /// The envelope cut off in the middle.
    case truncatedJSON
    /// A gateway's HTML error page with status 502.
    case htmlGatewayPage
    /// A valid envelope sent as `text/plain`.
    case wrongContentType
    /// A valid envelope behind a UTF-8 byte order mark.
    case bom

    /// The response this preset sends, built from the stub's code, message and data.
    func response(code: JSONValue, message: String, data: JSONValue, keys: EnvelopeKeys) -> StubResponse {
        let valid: [String: JSONValue] = [keys.code: code, keys.message: .string(message), keys.data: data]
        switch self {
        case .missingCode:
            return .json(.object(valid.filter { $0.key != keys.code }))
        case .codeAsString:
            var object = valid
            object[keys.code] = .string(code.stringValue)
            return .json(.object(object))
        case .dataWrongType:
            var object = valid
            object[keys.data] = .string("not an object")
            return .json(.object(object))
        case .truncatedJSON:
            let bytes = JSONValue.object(valid).jsonBytes
            return StubResponse(
                headers: [("Content-Type", "application/json")],
                body: Array(bytes.prefix(max(1, bytes.count / 2))))
        case .htmlGatewayPage:
            let page =
                "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1>"
                + "</center><hr><center>nginx</center></body></html>\n"
            return StubResponse(
                status: 502, headers: [("Content-Type", "text/html")], body: Array(page.utf8))
        case .wrongContentType:
            return StubResponse(
                headers: [("Content-Type", "text/plain; charset=utf-8")],
                body: JSONValue.object(valid).jsonBytes)
        case .bom:
            return StubResponse(
                headers: [("Content-Type", "application/json")],
                body: [0xEF, 0xBB, 0xBF] + JSONValue.object(valid).jsonBytes)
        }
    }
}

extension JSONValue {
    /// The value as text: strings unquoted, everything else as JSON.
    var stringValue: String {
        if case .string(let text) = self { return text }
        return description
    }
}
