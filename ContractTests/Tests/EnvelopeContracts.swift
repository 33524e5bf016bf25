import CourierCodable
import CourierCore
import CourierTesting
import Testing

/// `envelope.json`: the `{code, msg, data}` stage end to end.
struct EnvelopeContracts {
    @Test(arguments: ContractTransport.allCases)
    func success(kind: ContractTransport) async throws {
        try await contract("envelope: success", kind) {
            try await ContractServer.with("envelope.json") { server in
                let user = try await makeClient(kind).send(Endpoint<User>(.get("user"), on: server.node()))
                check(user == User(id: 7, name: "Ada"), "decoded \(user)")
                let journal = try await server.exchanges()
                journal.expectCount("success", .exactly(1))
                journal.expectNoUnmatched()
            }
        }
    }

    /// A business failure carries code and message, whatever the HTTP status.
    @Test(
        arguments: ContractTransport.allCases,
        [
            ("expired", 200, 4001, "token expired"), ("forbidden", 403, 4003, "not your order"),
            ("broken", 500, 5001, "database unavailable"),
        ])
    func businessError(kind: ContractTransport, expected: (String, Int, Int, String)) async throws {
        let (path, status, code, message) = expected
        try await contract("envelope: business error on HTTP \(status)", kind) {
            try await ContractServer.with("envelope.json") { server in
                let error = await expectCourierError(path) {
                    try await makeClient(kind).send(Endpoint<User>(.get("\(path)"), on: server.node()))
                }
                check(error?.businessFailure?.code == .int(code), "code: \(String(describing: error))")
                check(error?.businessFailure?.message == message, "message: \(String(describing: error))")
                check(
                    error?.code == (status == 200 ? .envelope : .status),
                    "error code: \(String(describing: error))")
                check(error?.response?.statusCode == status, "status")
                try await server.exchanges().expectTotal(.exactly(1))
            }
        }
    }

    /// Malformed envelopes map to the right error, never to a crash or a model.
    @Test(
        arguments: ContractTransport.allCases,
        [
            ("missing-code", CourierError.Code.envelope), ("missing-data", .envelope),
            ("null-data", .envelope), ("wrong-type", .decoding),
            ("not-json", .envelope), ("gateway", .status), ("truncated", .envelope),
        ])
    func malformed(kind: ContractTransport, expected: (String, CourierError.Code)) async throws {
        let (path, code) = expected
        try await contract("envelope: \(path)", kind) {
            try await ContractServer.with("envelope.json") { server in
                let error = await expectCourierError(path) {
                    try await makeClient(kind).send(Endpoint<User>(.get("\(path)"), on: server.node()))
                }
                check(error?.code == code, "\(path): expected \(code), got \(String(describing: error))")
                check(error?.businessFailure == nil, "\(path) is not a business failure")
                try await server.exchanges().expectTotal(.exactly(1))
            }
        }
    }

    /// `"0"` is not `0`: reported as the business code it is, unless the
    /// format matches codes leniently.
    @Test(arguments: ContractTransport.allCases)
    func codeAsString(kind: ContractTransport) async throws {
        try await contract("envelope: code as a string", kind) {
            try await ContractServer.with("envelope.json") { server in
                let client = makeClient(kind)
                let error = await expectCourierError("code-as-string") {
                    try await client.send(Endpoint<User>(.get("code-as-string"), on: server.node()))
                }
                check(
                    error?.code == .envelope && error?.businessFailure?.code == .string("0"),
                    "\(String(describing: error))")
                var lenient = EnvelopeFormat.standard
                lenient.codeMatching = .lenient
                let user = try await client.send(
                    Endpoint<User>(.get("code-as-string"), on: server.node(envelope: lenient)))
                check(user == User(id: 7, name: "Ada"), "lenient: \(user)")
            }
        }
    }

    /// Missing or null `data` is fine for a model that can be empty.
    @Test(arguments: ContractTransport.allCases)
    func missingDataDecodesAsEmpty(kind: ContractTransport) async throws {
        try await contract("envelope: missing data, empty model", kind) {
            try await ContractServer.with("envelope.json") { server in
                let client = makeClient(kind)
                _ = try await client.send(Endpoint<EmptyResponse>(.get("missing-data"), on: server.node()))
                let optional = try await client.send(Endpoint<User?>(.get("null-data"), on: server.node()))
                check(optional == nil, "null data decoded as \(String(describing: optional))")
            }
        }
    }

    /// A business error is reported even when its `data` would not decode.
    @Test(arguments: ContractTransport.allCases)
    func businessErrorWithUndecodableData(kind: ContractTransport) async throws {
        try await contract("envelope: business error, undecodable data", kind) {
            try await ContractServer.with("envelope.json") { server in
                let error = await expectCourierError("error-wrong-type") {
                    try await makeClient(kind).send(
                        Endpoint<User>(.get("error-wrong-type"), on: server.node()))
                }
                check(error?.code == .envelope, "\(String(describing: error))")
                check(error?.businessFailure?.code == 4220, "\(String(describing: error))")
                check(error?.businessFailure?.message == "invalid fields", "\(String(describing: error))")
            }
        }
    }

    /// A valid envelope as `text/plain`: accepted by default, refused when the
    /// validation asks for JSON.
    @Test(arguments: ContractTransport.allCases)
    func wrongContentType(kind: ContractTransport) async throws {
        try await contract("envelope: wrong content type", kind) {
            try await ContractServer.with("envelope.json") { server in
                let client = makeClient(kind)
                var endpoint = Endpoint<User>(.get("text"), on: server.node())
                check(try await client.send(endpoint) == User(id: 7, name: "Ada"), "lenient by default")
                endpoint.spec.validation = Validation.successCodes.requiring(contentTypes: [
                    "application/json"
                ])
                let error = await expectCourierError("text") { try await client.send(endpoint) }
                check(error?.code == .contentType, "\(String(describing: error))")
            }
        }
    }

    /// RFC 8259 §8.1 lets a parser ignore a byte order mark; Courier does.
    @Test(arguments: ContractTransport.allCases)
    func byteOrderMark(kind: ContractTransport) async throws {
        try await contract("envelope: UTF-8 byte order mark", kind) {
            try await ContractServer.with("envelope.json") { server in
                let user = try await makeClient(kind).send(Endpoint<User>(.get("bom"), on: server.node()))
                check(user == User(id: 7, name: "Ada"), "decoded \(user)")
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func customKeysAndNestedPaths(kind: ContractTransport) async throws {
        try await contract("envelope: custom keys and nested paths", kind) {
            try await ContractServer.with("envelope.json") { server in
                let client = makeClient(kind)
                let custom = EnvelopeFormat(
                    code: "status", message: ["message"], data: "result", successCodes: [200])
                let first = try await client.send(
                    Endpoint<User>(.get("custom-keys"), on: server.node(envelope: custom)))
                check(first == User(id: 7, name: "Ada"), "custom keys: \(first)")
                let nested = EnvelopeFormat(code: "meta.code", message: ["meta.desc"], data: "payload.user")
                let second = try await client.send(
                    Endpoint<User>(.get("nested"), on: server.node(envelope: nested)))
                check(second == User(id: 7, name: "Ada"), "nested paths: \(second)")
            }
        }
    }

    /// Business codes configured as retryable are retried; others are not.
    @Test(arguments: ContractTransport.allCases)
    func retryableBusinessCodes(kind: ContractTransport) async throws {
        try await contract("envelope: retryable business code", kind) {
            try await ContractServer.with("envelope.json") { server in
                let clock = TestClock()
                let policy = RetryPolicy(maxAttempts: 3, jitter: .none, retryableBusinessCodes: [5030])
                let client = makeClient(kind, retryPolicy: policy, clock: clock)
                let reply = try await client.response(Endpoint<User>(.get("busy"), on: server.node()))
                check(
                    reply.model == User(id: 7, name: "Ada") && reply.attempts == 2,
                    "busy: \(reply.attempts) attempts")
                let error = await expectCourierError("denied") {
                    try await client.send(Endpoint<User>(.get("denied"), on: server.node()))
                }
                check(error?.businessFailure?.code == 4030, "\(String(describing: error))")
                let journal = try await server.exchanges()
                journal.expectCount("busy-then-ok", .exactly(2))
                journal.expectCount("denied", .exactly(1))
                journal.expectOrder(["busy-then-ok", "busy-then-ok", "denied"])
                check(clock.sleeps.count == 1, "one wait, saw \(clock.sleeps)")
            }
        }
    }
}
