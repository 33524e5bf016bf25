public import CourierCore
public import HTTPTypes

/// What a ``StubTransport`` answers: a response, or a transport failure.
public struct StubOutcome: Sendable {
    enum Kind: Sendable {
        case response(HTTPResponse, [UInt8])
        case failure(TransportError)
    }

    let kind: Kind

    /// A response with a status, header fields and a body.
    public static func response(status: Int, headers: HTTPFields = [:], body: [UInt8] = []) -> StubOutcome {
        StubOutcome(kind: .response(HTTPResponse(status: .init(code: status), headerFields: headers), body))
    }

    /// A response with a text body (`text/plain` unless headers say otherwise).
    public static func text(_ text: String, status: Int = 200, headers: HTTPFields = [:]) -> StubOutcome {
        var fields: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        fields.setAll(headers)
        return response(status: status, headers: fields, body: Array(text.utf8))
    }

    /// A JSON response from JSON text.
    public static func json(_ json: String, status: Int = 200, headers: HTTPFields = [:]) -> StubOutcome {
        var fields: HTTPFields = [.contentType: "application/json"]
        fields.setAll(headers)
        return response(status: status, headers: fields, body: Array(json.utf8))
    }

    /// A `{"code": …, "msg": …, "data": …}` envelope; `data` is JSON text.
    public static func envelope(code: Int, msg: String = "", data: String = "null", status: Int = 200)
        -> StubOutcome
    {
        json(#"{"code":\#(code),"msg":"\#(msg)","data":\#(data)}"#, status: status)
    }

    /// An empty response with a status and header fields.
    public static func status(_ status: Int, headers: HTTPFields = [:]) -> StubOutcome {
        response(status: status, headers: headers)
    }

    /// A transport failure.
    public static func failure(_ code: TransportError.Code, _ message: String = "stubbed failure")
        -> StubOutcome
    {
        StubOutcome(kind: .failure(TransportError(code, message)))
    }
}
