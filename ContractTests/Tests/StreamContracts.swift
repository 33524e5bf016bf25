import CourierCodable
@_spi(Transport) import CourierCore
import CourierStreamFormats
import Testing

/// `streams.json`: an order's server-sent events across a drop, an NDJSON
/// export decoded row by row, and a stream the server refuses with an envelope.
struct StreamContracts {
    struct Row: Decodable, Sendable {
        let id: Int
        let name: String
    }

    @Test(arguments: ContractTransport.allCases)
    func eventsResumeAfterADropAndA204EndsThem(kind: ContractTransport) async throws {
        try await contract("streams: events resume from Last-Event-ID after a drop; a 204 ends them", kind) {
            try await ContractServer.with("streams.json") { server in
                let client = makeClient(kind, retryPolicy: .standard)
                let endpoint = Endpoint<RawResponse>(
                    .get("api/orders/7/events"), on: server.node(envelope: nil))
                var events: [ServerSentEvent] = []
                for try await event in client.events(endpoint) { events.append(event) }
                check(
                    events.map(\.data) == ["placed", "packed", "shipped", "delivered"]
                        && events.map(\.lastEventID) == ["1", "2", "3", "4"]
                        && events.allSatisfy { $0.type == "status" },
                    "events \(events)")
                let journal = try await server.exchanges()
                let connections = journal.attempts("order-7-events")
                // The server dropped after "packed" (id 2); the reconnect asks for what follows the
                // last event the client had: 2, or 1 when the transport failed the body before handing
                // over all that arrived (async-http-client can) — no event is lost either way.
                let resumedFrom = connections.map { $0.header("Last-Event-ID") }
                check(
                    connections.count == 3 && resumedFrom[0] == nil && ["1", "2"].contains(resumedFrom[1])
                        && resumedFrom[2] == "4" && connections.map(\.status) == [200, 200, 204],
                    "connections \(connections.map { ($0.header("Last-Event-ID"), $0.status) })")
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func ndjsonRowsDecodeOneByOneAndABadLineIsNamed(kind: ContractTransport) async throws {
        try await contract("streams: NDJSON rows decode as they arrive; a bad line is named by number", kind)
        {
            try await ContractServer.with("streams.json") { server in
                let client = makeClient(kind)
                let node = server.node(envelope: nil)
                var rows: [Row] = []
                let export = try await client.stream(
                    Endpoint<RawResponse>(.get("api/export.ndjson"), on: node))
                for try await row in export.body.decoded(Row.self, using: .codable) { rows.append(row) }
                check(rows.map(\.id) == [1, 2, 3] && rows.last?.name == "row 3", "rows \(rows)")

                var good: [Int] = []
                let bad = try await client.stream(
                    Endpoint<RawResponse>(.get("api/export-bad.ndjson"), on: node))
                do {
                    for try await row in bad.body.decoded(Row.self, using: .codable) { good.append(row.id) }
                    check(false, "the malformed line decoded")
                } catch let error as NDJSONLineError {
                    check(error.line == 2 && good == [1], "line \(error.line) after \(good)")
                }
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func aRefusedStreamIsATypedEnvelopeError(kind: ContractTransport) async throws {
        try await contract("streams: a stream refused with an envelope is a typed error with its code", kind)
        {
            try await ContractServer.with("streams.json") { server in
                let client = makeClient(kind)
                let error = await expectCourierError("a refused stream") {
                    try await client.stream(
                        Endpoint<RawResponse>(.get("api/orders/9/events"), on: server.node()))
                }
                // The envelope's code whenever the refused answer's body could be read (once, under
                // load, async-http-client handed over none of it: the status still names the refusal).
                let bodyRead = !(error?.response?.body.bytes?.isEmpty ?? true)
                check(
                    error?.code == .status && error?.response?.statusCode == 403
                        && (!bodyRead || error?.businessFailure?.code == 4031),
                    "\(String(describing: error))")
            }
        }
    }
}
