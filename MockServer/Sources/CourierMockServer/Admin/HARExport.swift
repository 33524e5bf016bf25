import Foundation

/// The journal as an HTTP Archive (HAR 1.2): open it in a browser's
/// developer tools or any HAR viewer to see what a client sent and what it
/// was answered. Served at `GET /__admin/requests/har`.
///
/// Each entry carries the request as received (headers in order, query,
/// body as text or base64), the planned answer (status, headers, the body's
/// first 16 KiB; a streamed body is marked with its size unknown), timings
/// from the journal's clock, and Courier's own fields under `_courier`
/// (stub, near-miss status, fault, connection and exchange index), as HAR
/// allows for custom fields.
///
/// Secrets stay out (``SecretMask/standard``, the names Courier's
/// `Redaction.standard` hides): the values of credential header fields,
/// token query parameters and secret JSON and form fields read `***` — a HAR
/// file is made to be attached to a bug report.
enum HARExport {
    static let secrets = SecretMask.standard

    static func document(_ entries: [JournalEntry], startDate: Date, serverURL: String) -> JSONValue {
        .object([
            "log": .object([
                "version": .string("1.2"),
                "creator": .object(["name": .string("courier-mock"), "version": .string("1")]),
                "entries": .array(entries.map { entry(for: $0, startDate: startDate, serverURL: serverURL) }),
            ])
        ])
    }

    private static func entry(for entry: JournalEntry, startDate: Date, serverURL: String) -> JSONValue {
        let times = entry.timestamps
        let started = startDate.addingTimeInterval(Double(times.firstByte) / 1e9)
        let milliseconds = { (from: UInt64, to: UInt64?) -> Double in
            guard let to, to >= from else { return -1 }
            return Double(to - from) / 1e6
        }
        let send = milliseconds(times.firstByte, times.bodyDone ?? times.headersDone)
        let wait = milliseconds(times.bodyDone ?? times.headersDone, times.responseStart)
        let receive = milliseconds(times.responseStart ?? 0, times.responseEnd)
        let total = [send, wait, receive].filter { $0 >= 0 }.reduce(0, +)
        var courier: [String: JSONValue] = [
            "sequence": .int(Int64(entry.sequence)),
            "connectionIndex": .int(Int64(entry.connectionIndex)),
            "exchangeIndex": .int(Int64(entry.exchangeIndex)),
            "unmatched": .bool(entry.unmatched),
            "bytesWritten": .int(Int64(entry.bytesWritten)),
        ]
        if let stub = entry.stubID { courier["stubID"] = .string(stub) }
        if let route = entry.builtinRoute { courier["builtinRoute"] = .string(route) }
        if let fault = entry.fault { courier["fault"] = .string(fault) }
        if let delay = entry.delayMs { courier["delayMs"] = .int(Int64(delay)) }
        return .object([
            "startedDateTime": .string(isoDate(started)),
            "time": .double(total),
            "request": request(entry.request, serverURL: serverURL),
            "response": response(entry),
            "cache": .object([:]),
            "timings": .object([
                "send": .double(max(0, send)), "wait": .double(max(0, wait)),
                "receive": .double(max(0, receive)),
            ]),
            "connection": .string("\(entry.connectionIndex)"),
            "_courier": .object(courier),
        ])
    }

    private static func request(_ request: RecordedRequest, serverURL: String) -> JSONValue {
        var fields: [String: JSONValue] = [
            "method": .string(request.method),
            "url": .string(serverURL + secrets.target(request.uri)),
            "httpVersion": .string(request.version),
            "cookies": .array([]),
            "headers": headers(request.headers),
            "queryString": .array(
                request.query.map {
                    .object([
                        "name": .string($0.name),
                        "value": .string(secrets.hidesQuery($0.name) ? secrets.mask : $0.value),
                    ])
                }),
            "headersSize": .int(-1),
            "bodySize": .int(Int64(request.body.count)),
        ]
        if !request.body.isEmpty {
            fields["postData"] = .object([
                "mimeType": .string(request.header("Content-Type") ?? "application/octet-stream"),
                "text": .string(
                    request.bodyText.map { secrets.body($0, contentType: request.header("Content-Type")) }
                        ?? Data(request.body).base64EncodedString()),
            ])
        }
        return .object(fields)
    }

    private static func response(_ entry: JournalEntry) -> JSONValue {
        let planned = entry.response
        let status = entry.status ?? 0
        var content: [String: JSONValue] = [
            "size": .int(Int64(planned?.bodySize ?? -1)),
            "mimeType": .string(planned?.header("Content-Type") ?? "x-unknown"),
        ]
        if let body = planned?.body, !body.isEmpty {
            if let text = String(validating: body, as: UTF8.self) {
                content["text"] = .string(secrets.body(text, contentType: planned?.header("Content-Type")))
            } else {
                content["text"] = .string(Data(body).base64EncodedString())
                content["encoding"] = .string("base64")
            }
            if body.count < planned?.bodySize ?? 0 {
                content["comment"] = .string("the first \(body.count) bytes of \(planned?.bodySize ?? 0)")
            }
        } else if planned != nil, planned?.bodySize == nil {
            content["comment"] = .string("a streamed body (not kept)")
        }
        return .object([
            "status": .int(Int64(status)),
            "statusText": .string(status == 0 ? "" : HTTPStatusText.reason(status)),
            "httpVersion": .string("HTTP/1.1"),
            "cookies": .array([]),
            "headers": headers(planned?.headers ?? []),
            "content": .object(content),
            "redirectURL": .string(secrets.url(planned?.header("Location") ?? "")),
            "headersSize": .int(-1),
            "bodySize": .int(Int64(entry.bytesWritten == 0 ? -1 : planned?.bodySize ?? -1)),
        ])
    }

    private static func headers(_ lines: [RecordedRequest.HeaderLine]) -> JSONValue {
        .array(
            lines.map {
                .object(["name": .string($0.name), "value": .string(secrets.header($0.name, $0.value))])
            })
    }

    private static func isoDate(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)
        )
    }
}
