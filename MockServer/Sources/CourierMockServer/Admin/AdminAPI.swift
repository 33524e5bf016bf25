import Foundation

/// The WireMock-shaped admin API under `/__admin`, loopback-only unless the
/// server allows remote administration.
///
/// | method and path | what it does |
/// |---|---|
/// | `GET /__admin/health` | `{"status":"ok"}` |
/// | `GET /__admin/mappings` | the stubs, match order, with hit counts |
/// | `POST /__admin/mappings` | add a stub (or `{"mappings": […]}`); 400 names the bad field |
/// | `DELETE /__admin/mappings/{id}` | remove a stub |
/// | `GET /__admin/ui` | the live journal page (``AdminPage``) |
/// | `GET /__admin/requests?since=` | the journal (entries after sequence `since`; `sequence=` for one) |
/// | `GET /__admin/requests/har` | the journal as HAR 1.2 (``HARExport``) |
/// | `GET /__admin/requests/count?stubId=&method=&path=` | how many entries match |
/// | `DELETE /__admin/requests` | clear the journal |
/// | `GET /__admin/requests/unmatched` | entries no stub or route matched |
/// | `POST /__admin/reset` | journal, sequences, scenarios, failures and stubs back to the start |
/// | `GET /__admin/scenarios` | every scenario with its state and possible states |
/// | `PUT /__admin/scenarios/{name}/state` | set a state: `{"state": "…"}` |
/// | `POST /__admin/scenarios/reset` | every scenario back to `Started` |
/// | `POST /__admin/connection-faults` | queue accept-time faults: `{"faults": ["stallAfterAccept"]}` |
/// | `POST /__admin/recordings/start` | forward every request to `{"target": …}` and keep the exchanges |
/// | `POST /__admin/recordings/stop` | stop; the recorded exchanges as mappings (secrets replaced) |
/// | `GET /__admin/verify` | 200 when nothing failed and every required stub was hit, else 409 |
struct AdminAPI {
    static let prefix = "/__admin"

    let core: ServerCore

    /// One route: a method, a path under ``prefix`` whose `{name}` segments
    /// match any one segment, and what answers it.
    struct Route: Sendable {
        let method: String
        let segments: [Substring]
        let answer: @Sendable (AdminAPI, Request) -> StubResponse

        init(
            _ method: String, _ path: String,
            _ answer: @escaping @Sendable (AdminAPI, Request) -> StubResponse
        ) {
            self.method = method
            self.segments = path.split(separator: "/")
            self.answer = answer
        }

        /// The values of the `{name}` segments when `parts` is this route's path, else `nil`.
        func parameters(_ parts: [Substring]) -> [Substring: String]? {
            guard parts.count == segments.count else { return nil }
            var values: [Substring: String] = [:]
            for (segment, part) in zip(segments, parts) {
                if segment.hasPrefix("{") {
                    values[segment.dropFirst().dropLast()] = String(part)
                } else if segment != part {
                    return nil
                }
            }
            return values
        }
    }

    /// A request to a route, with the values of its `{name}` segments.
    struct Request {
        let recorded: RecordedRequest
        let parameters: [Substring: String]

        /// The value of the route's `{name}` segment.
        subscript(_ name: Substring) -> String { parameters[name] ?? "" }
    }

    /// Every route, as the table above lists them.
    static let routes: [Route] = [
        Route("GET", "health") { _, _ in .json(.object(["status": .string("ok")])) },
        Route("GET", "mappings") { api, _ in api.mappings() },
        Route("POST", "mappings") { api, request in api.addMappings(request.recorded.body) },
        Route("DELETE", "mappings/{id}") { api, request in api.removeMapping(request["id"]) },
        Route("GET", "ui") { _, _ in AdminAPI.page() },
        Route("GET", "requests") { api, request in api.journal(request.recorded) },
        Route("GET", "requests/har") { api, request in api.har(request.recorded) },
        Route("GET", "requests/count") { api, request in
            .json(.object(["count": .int(Int64(api.count(request.recorded)))]))
        },
        Route("DELETE", "requests") { api, _ in api.clearJournal() },
        Route("GET", "requests/unmatched") { api, _ in
            api.encode(["requests": api.core.journal.unmatched], meta: api.core.journal.dropped)
        },
        Route("POST", "reset") { api, _ in api.reset() },
        Route("GET", "scenarios") { api, _ in api.scenarios() },
        Route("PUT", "scenarios/{name}/state") { api, request in
            api.setScenario(request["name"], request.recorded.body)
        },
        Route("POST", "scenarios/reset") { api, _ in api.resetScenarios() },
        Route("POST", "connection-faults") { api, request in api.queueConnectionFaults(request.recorded.body)
        },
        Route("POST", "recordings/start") { api, request in api.startRecording(request.recorded.body) },
        Route("POST", "recordings/stop") { api, _ in api.stopRecording() },
        Route("GET", "verify") { api, _ in api.verify() },
    ]

    /// Answers an admin request from the route table: 404 for a path no
    /// route has, 405 with `Allow` for a path whose routes take other methods.
    func handle(_ request: RecordedRequest, remoteAddress: String) -> StubResponse {
        guard core.configuration.allowRemoteAdmin || Self.isLoopback(remoteAddress) else {
            return error(403, "the admin API answers loopback clients only (start with --allow-remote-admin)")
        }
        let parts = request.path.dropFirst(Self.prefix.count).split(separator: "/")
        var allowed: [String] = []
        for route in Self.routes {
            guard let parameters = route.parameters(parts) else { continue }
            guard route.method == request.method else {
                allowed.append(route.method)
                continue
            }
            return route.answer(self, Request(recorded: request, parameters: parameters))
        }
        guard allowed.isEmpty else {
            var response = error(405, "\(request.method) is not allowed on \(request.path)")
            response.headers.append(("Allow", allowed.joined(separator: ", ")))
            return response
        }
        return error(404, "no admin route \(request.method) \(request.path)")
    }

    /// Whether the request is for the admin API.
    static func isAdmin(_ request: RecordedRequest) -> Bool {
        request.path == prefix || request.path.hasPrefix(prefix + "/")
    }

    static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address.hasPrefix("::1:") || address.hasPrefix("::ffff:127.")
    }

    func error(_ status: Int, _ message: String) -> StubResponse {
        .json(.object(["error": .string(message)]), status: status)
    }
}
