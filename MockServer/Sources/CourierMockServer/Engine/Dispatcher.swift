import Foundation
import Logging

/// Decides how to answer a complete request: admin API, a refusal (a wire
/// rule, the OpenAPI document), a stub, the document's answer, a built-in
/// route, or a 404 with a near-miss report.
struct Dispatcher {
    let core: ServerCore

    struct Answer {
        var plan: ResponsePlan
        /// What to journal; `nil` for admin requests, which are not journaled.
        var journal: JournalFields?
        /// The conversation that follows the plan's `101`, when the request
        /// was upgraded to a WebSocket.
        var webSocket: WebSocketScript?
    }

    func answer(_ request: RecordedRequest, remoteAddress: String) -> Answer {
        let keepAlive = Self.keepsAlive(request)
        if request.path == AdminAPI.prefix || request.path.hasPrefix(AdminAPI.prefix + "/") {
            let response = AdminAPI(core: core).handle(request, remoteAddress: remoteAddress)
            return Answer(plan: .make(response, delayMs: 0, keepAlive: keepAlive), journal: nil)
        }
        let limited = core.rateLimits.flatMap { $0.count(request, remoteAddress: remoteAddress) }
        if let limited, !limited.allowed, let windows = core.rateLimits {
            var fields = JournalFields(status: 429)
            fields.fault = "rate limited"
            let refusal = StubResponse(
                status: 429,
                headers: [("Content-Type", "text/plain; charset=utf-8")] + windows.fields(limited),
                body: Array("rate limit exceeded; try again in \(limited.reset) s".utf8))
            fields.response = RecordedResponse(planned: refusal)
            return Answer(plan: .make(refusal, delayMs: 0, keepAlive: keepAlive), journal: fields)
        }
        if core.configuration.refusesForbiddenRequests, let rule = WireRules.violation(request) {
            core.logger.info(
                "refused request",
                metadata: [
                    "request": "\(request.method) \(SecretMask.standard.target(request.uri))",
                    "rule": "\(rule)",
                ])
            if core.configuration.strict {
                core.registry.recordFailure(
                    "\(request.method) \(SecretMask.standard.target(request.uri)): \(rule)")
            }
            var fields = JournalFields(status: 400)
            fields.unmatched = true
            fields.fault = "refused: \(rule)"
            let refusal = StubResponse(
                status: 400, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(rule.utf8))
            fields.response = RecordedResponse(planned: refusal)
            return Answer(plan: .make(refusal, delayMs: 0, keepAlive: false), journal: fields)
        }
        let (specCheck, refusal) = checkAgainstSpec(request, keepAlive: keepAlive)
        if let refusal { return refusal }
        switch core.registry.match(request) {
        case .success(var matched):
            if let limited, let windows = core.rateLimits {
                matched.response.headers += windows.fields(limited)
                matched.prepared = nil
            }
            let plan: ResponsePlan
            var fields = JournalFields(matched: matched, status: nil)
            fields.note(specCheck)
            if let script = matched.response.webSocket {
                return Self.webSocket(request, script, fields, keepAlive: keepAlive)
            } else if let stream = matched.response.eventStream,
                stream.isDone(after: request.header("Last-Event-ID"))
            {
                let done = StubResponse(status: 204)
                plan = .make(done, delayMs: 0, keepAlive: keepAlive)
                fields.response = RecordedResponse(planned: done)
            } else if let stream = matched.response.eventStream {
                plan = .eventStream(
                    matched.response, stream, lastEventID: request.header("Last-Event-ID"),
                    delayMs: matched.delayMs, keepAlive: keepAlive)
                fields.response = RecordedResponse(
                    streamed: matched.response, contentType: "text/event-stream")
            } else if let stream = matched.response.ndjson {
                plan = .ndjson(matched.response, stream, delayMs: matched.delayMs, keepAlive: keepAlive)
                fields.response = RecordedResponse(
                    streamed: matched.response, contentType: "application/x-ndjson")
            } else {
                let answer = ResponsePlan.answer(matched, for: request, keepAlive: keepAlive)
                plan = answer.plan
                fields.response = RecordedResponse(planned: answer.sent)
            }
            fields.status = plan.status
            return Answer(plan: plan, journal: fields)
        case .failure(let report):
            if let answer = answerFromSpec(request, specCheck, keepAlive: keepAlive) { return answer }
            if core.configuration.builtinRoutes, let builtin = BuiltinRoutes.answer(request) {
                let plan =
                    if let count = builtin.streamedPatternBytes {
                        ResponsePlan.streamedPattern(builtin.response, count: count, keepAlive: keepAlive)
                    } else {
                        ResponsePlan.make(
                            RangeRequests.apply(builtin.response, for: request), delayMs: builtin.delayMs,
                            keepAlive: keepAlive)
                    }
                var fields = JournalFields(status: plan.status)
                fields.builtinRoute = builtin.route
                fields.response = RecordedResponse(planned: builtin.response)
                return Answer(plan: plan, journal: fields)
            }
            if core.configuration.strict { core.registry.recordFailure(report.summary) }
            core.logger.info("unmatched request", metadata: ["request": "\(report.method) \(report.uri)"])
            var fields = JournalFields(status: 404)
            fields.unmatched = true
            fields.nearMisses = report.nearMisses
            let body = JSONValue.object([
                "error": .string("no stub matched \(report.method) \(report.uri)"),
                "nearMisses": .array(report.nearMisses.map(Self.json)),
            ])
            let answer = StubResponse.json(body, status: 404)
            fields.response = RecordedResponse(planned: answer)
            return Answer(plan: .make(answer, delayMs: 0, keepAlive: keepAlive), journal: fields)
        }
    }

    /// A request to a WebSocket stub: `101` and the conversation, or the
    /// refusal RFC 6455 §4.2 asks for.
    private static func webSocket(
        _ request: RecordedRequest, _ script: WebSocketScript, _ matched: JournalFields, keepAlive: Bool
    ) -> Answer {
        var fields = matched
        switch WebSocketHandshake.verdict(for: request, script) {
        case .upgrade(let headers, _):
            let head =
                "HTTP/1.1 101 Switching Protocols\r\n"
                + headers.map { "\($0.name): \($0.value)\r\n" }.joined() + "\r\n"
            fields.status = 101
            fields.response = RecordedResponse(planned: StubResponse(status: 101, headers: headers))
            return Answer(
                plan: ResponsePlan(steps: [.write(Array(head.utf8))], status: 101), journal: fields,
                webSocket: script)
        case .refused(let status, let headers, let reason):
            let refusal = StubResponse(
                status: status, headers: headers + [("Content-Type", "text/plain; charset=utf-8")],
                body: Array(reason.utf8))
            fields.status = status
            fields.response = RecordedResponse(planned: refusal)
            return Answer(plan: .make(refusal, delayMs: 0, keepAlive: keepAlive), journal: fields)
        }
    }

    /// HTTP/1.1 keeps the connection unless told `close`; HTTP/1.0 only when told `keep-alive`.
    static func keepsAlive(_ request: RecordedRequest) -> Bool {
        let values = request.headerValues("Connection")
        if values.isEmpty { return request.version != "HTTP/1.0" }
        let tokens = values.flatMap { $0.lowercased().split(separator: ",") }.map(\.trimmed)
        if request.version == "HTTP/1.0" { return tokens.contains("keep-alive") }
        return !tokens.contains("close")
    }

    private static func json(_ miss: NearMiss) -> JSONValue {
        .object([
            "stub": .string(miss.stubID),
            "failed": .array(
                miss.failed.map {
                    .object(["matcher": .string($0.matcher), "actual": .string($0.actual)])
                }),
        ])
    }
}
