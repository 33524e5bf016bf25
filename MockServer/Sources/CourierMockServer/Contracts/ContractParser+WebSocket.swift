import Foundation

extension ContractParser {
    /// A response's `webSocket` (see ``WebSocketScript``).
    func parseWebSocket(_ value: JSONValue, path: String) throws(ContractError) -> WebSocketScript {
        let reader = try ContractReader(
            file: file, path: path, value: value, allowed: ["subprotocols", "steps", "then"])
        var script = WebSocketScript()
        for (index, item) in (try reader.array("subprotocols") ?? []).enumerated() {
            guard case .string(let name) = item, !name.isEmpty else {
                throw ContractError(
                    file: file, path: "\(path).subprotocols[\(index)]", message: "expected a subprotocol name"
                )
            }
            script.subprotocols.append(name)
        }
        for (index, item) in (try reader.array("steps") ?? []).enumerated() {
            script.steps.append(try parseWebSocketStep(item, path: "\(path).steps[\(index)]"))
        }
        if let then = try reader.string("then") {
            guard let parsed = WebSocketScript.Then(rawValue: then) else {
                throw reader.error("then", "must be echo, hold or close")
            }
            script.then = parsed
        }
        return script
    }

    private func parseWebSocketStep(_ value: JSONValue, path: String) throws(ContractError) -> (
        step: WebSocketScript.Step, delayMs: Int
    ) {
        let reader = try ContractReader(
            file: file, path: path, value: value,
            allowed: ["send", "expect", "answer", "echo", "ping", "close", "fault", "delayMs"])
        let delay = try reader.int("delayMs", in: 0...600_000) ?? 0
        let kinds = ["send", "expect", "echo", "ping", "close", "fault"].filter(reader.has)
        guard kinds.count == 1, let kind = kinds.first else {
            throw ContractError(
                file: file, path: path, message: "a step is one of send, expect, echo, ping, close or fault")
        }
        if reader.has("answer"), kind != "expect" {
            throw reader.error("answer", "only an expect step answers")
        }
        switch kind {
        case "send":
            return (.send(try parseWebSocketMessage(reader.value("send"), path: "\(path).send")), delay)
        case "expect":
            let expectation = try ContractReader(
                file: file, path: "\(path).expect", value: reader.value("expect") ?? .null,
                allowed: ["text", "binary"])
            let expected: WebSocketScript.Expectation
            if let text = expectation.value("text") {
                expected = .text(try StringMatcher.parse(text, file: file, path: "\(path).expect.text"))
            } else if expectation.has("binary") {
                expected = .binary
            } else {
                throw expectation.error(nil, "expect text (a string matcher) or binary")
            }
            var answers: [WebSocketScript.Message] = []
            for (index, item) in (try reader.array("answer") ?? []).enumerated() {
                answers.append(try parseWebSocketMessage(item, path: "\(path).answer[\(index)]"))
            }
            return (.expect(expected, answer: answers), delay)
        case "echo":
            return (.echo(count: try reader.int("echo", in: 1...1_000_000) ?? 1), delay)
        case "ping":
            let payload = Array((try reader.string("ping") ?? "").utf8)
            guard payload.count <= 125 else { throw reader.error("ping", "a ping carries at most 125 bytes") }
            return (.ping(payload), delay)
        case "close":
            let close = try ContractReader(
                file: file, path: "\(path).close", value: reader.value("close") ?? .null,
                allowed: ["code", "reason"])
            let code = try close.int("code", in: 1000...4999) ?? 1000
            let reason = try close.string("reason") ?? ""
            guard reason.utf8.count <= 123 else { throw close.error("reason", "at most 123 bytes") }
            return (.close(code: UInt16(code), reason: reason), delay)
        default:
            return (
                .fault(try parseWebSocketFault(reader.value("fault") ?? .null, path: "\(path).fault")), delay
            )
        }
    }

    private func parseWebSocketMessage(_ value: JSONValue?, path: String) throws(ContractError)
        -> WebSocketScript.Message
    {
        let reader = try ContractReader(
            file: file, path: path, value: value ?? .null, allowed: ["text", "binary"])
        if let text = try reader.string("text") { return .text(text) }
        if let base64 = try reader.string("binary") {
            guard let bytes = Data(base64Encoded: base64) else {
                throw reader.error("binary", "expected base64")
            }
            return .binary(Array(bytes))
        }
        throw reader.error(nil, "a message is {\"text\": …} or {\"binary\": base64}")
    }

    private func parseWebSocketFault(_ value: JSONValue, path: String) throws(ContractError)
        -> WebSocketScript.Fault
    {
        let reader: ContractReader
        let name: String
        if case .string(let text) = value {
            reader = try ContractReader(file: file, path: path, value: .object([:]), allowed: [])
            name = text
        } else {
            reader = try ContractReader(
                file: file, path: path, value: value, allowed: ["name", "bytes", "text", "fragments"])
            name = try reader.requiredString("name")
        }
        switch name {
        case "dropMidFrame": return .dropMidFrame(bytes: try reader.int("bytes", in: 2...(1 << 30)) ?? 1_000)
        case "noPong": return .noPong
        case "oversizedFrame":
            return .oversizedFrame(bytes: try reader.int("bytes", in: 1...(1 << 30)) ?? 1 << 20)
        case "invalidUTF8": return .invalidUTF8
        case "fragmented":
            return .fragmented(
                try reader.string("text") ?? "fragmented message",
                fragments: try reader.int("fragments", in: 2...1_000) ?? 3)
        default:
            throw ContractError(
                file: file, path: path,
                message:
                    "unknown WebSocket fault \(name): dropMidFrame, noPong, oversizedFrame, invalidUTF8, fragmented"
            )
        }
    }
}
