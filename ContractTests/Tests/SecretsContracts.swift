import CourierCodable
import CourierCookies
import CourierCore
import CourierMockServer
import CourierPlugins
import Foundation
import HTTPTypes
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Testing
import Tracing

/// `secrets.json`: secrets planted everywhere a user can put them — a
/// plugin's token, an API-key field, a `Cookie` field, the cookie jar, query
/// parameters, JSON and form bodies, a base URL's user information — and
/// everywhere a server can answer with them — bodies of error answers, a
/// `Set-Cookie`, redirect targets. Every error path is driven; no secret
/// appears in what people read: the errors' descriptions, the log lines and
/// curl commands, the metric labels, the span attributes, and courier-mock's
/// HAR export. The server's record shows each secret did go out.
struct SecretsContracts {
    /// The answers' secrets, written in `secrets.json`.
    static let served = [
        "S3CR-COOKIE-SID", "S3CR-BODY-TOKEN", "S3CR-BODY-REFRESH", "S3CR-BODY-BUSINESS", "S3CR-BODY-PASSWORD",
        "S3CR-FORM-ECHO", "S3CR-LOOP-TOKEN", "S3CR-USERINFO", "S3CR-SIG",
    ]

    /// courier-mock's HAR export and recordings hide the names Courier's
    /// errors and plugins hide: one list, written in two packages.
    @Test func courierMockHidesWhatCourierHides() {
        let courier = Redaction.standard
        let mock = SecretMask.standard
        #expect(Set(courier.headers.map { $0.canonicalName }) == mock.headers)
        #expect(Set(courier.queryParameters.map { Redaction.normalized($0) }) == mock.queryParameters)
        #expect(Set(courier.bodyFields.map { Redaction.normalized($0) }) == mock.bodyFields)
    }

    @Test(arguments: ContractTransport.allCases)
    func noPlantedSecretReachesWhatPeopleRead(kind: ContractTransport) async throws {
        try await contract(
            "secrets: planted everywhere, every error path; none in logs, metrics, spans, HAR", kind
        ) {
            try await ContractServer.with("secrets.json") { server in
                let secret = { (what: String) in "S3CR\(what)" + UUID().uuidString.prefix(8) }
                let (token, apiKey, ownCookie) = (secret("TOKEN"), secret("APIKEY"), secret("OWNCOOKIE"))
                let (queryToken, querySignature) = (secret("QUERYTOKEN"), secret("QUERYSIG"))
                let (password, clientSecret, userinfo) = (
                    secret("PASSWORD"), secret("CLIENT"), secret("USERINFO")
                )
                let planted = [
                    token, apiKey, ownCookie, queryToken, querySignature, password, clientSecret, userinfo,
                ]

                let handler = InMemoryLogHandler()
                var logger = Logger(label: "secrets", factory: { _ in handler })
                logger.logLevel = .trace
                let metrics = TestMetrics()
                let tracer = InMemoryTracer()
                let client = APIClient(
                    configuration: .init(
                        transport: kind.transport, decoder: .codable,
                        plugins: [
                            AccessTokenPlugin { _, _ in token }, LoggingPlugin(logger: logger),
                            MetricsPlugin(factory: metrics), TracingPlugin(tracer: tracer),
                        ],
                        timeout: contractSafetyNet, cookies: CookieJar()))
                let node = server.node()
                let headers: HTTPFields = [
                    HTTPField.Name("X-API-Key") ?? .authorization: apiKey, .cookie: "pref=\(ownCookie)",
                ]
                let query: Parameters = ["access_token": .string(queryToken), "sig": .string(querySignature)]

                // A login that works: the jar takes the server's session cookie.
                let login = Endpoint<User>(
                    .post("sec/login"), on: node,
                    content: .json(["user": "ada", "password": .string(password)]),
                    headers: headers)
                check(try await client.send(login).name == "Ada", "login")

                // Every way a call fails, each carrying every planted secret.
                var errors: [CourierError] = []
                let paths: [RoutePath] = [
                    "sec/denied", "sec/business", "sec/undecodable", "sec/loop", "sec/bad-target",
                    "sec/reset",
                ]
                for path in paths {
                    let failed = await expectCourierError("\(path)") {
                        try await client.send(
                            Endpoint<User>(.get(path), on: node, query: query, headers: headers))
                    }
                    if let failed { errors.append(failed) }
                }
                let form = await expectCourierError("a 500 echoing the form") {
                    try await client.send(
                        Endpoint<User>(
                            .post("sec/form"), on: node, query: query,
                            content: .form([
                                "grant_type": "client_credentials", "client_secret": .string(clientSecret),
                            ]),
                            headers: headers))
                }
                if let form { errors.append(form) }
                // A base URL with user information: refused or sent, never shown.
                let withUser = Node(
                    "userinfo",
                    baseURL: server.baseURL.replacingOccurrences(of: "://", with: "://ada:\(userinfo)@"),
                    envelope: .standard)
                do {
                    _ = try await client.send(Endpoint<User>(.get("sec/denied"), on: withUser, query: query))
                } catch let error as CourierError {
                    errors.append(error)
                }
                check(errors.count == 8, "every error path failed: \(errors.map(\.code))")

                // The server saw the secrets go out (and the jar's cookie come back).
                let journal = try await server.exchanges()
                let wire = journal.all.map {
                    "\($0.target) \($0.headers) \(String(decoding: $0.body, as: UTF8.self))"
                }
                .joined(separator: "\n")
                for value in [
                    token, apiKey, ownCookie, queryToken, password, clientSecret, "S3CR-COOKIE-SID",
                ] {
                    check(wire.contains(value), "\(value.prefix(14))… never reached the server")
                }

                // What people read: none of it.
                let described = errors.flatMap { error in
                    [
                        "\(error)", String(reflecting: error), error.message, error.bodySnippet ?? "",
                        error.underlying.map { "\($0)" } ?? "",
                    ]
                }
                let written = handler.entries.map { "\($0.message) \($0.metadata)" }
                let labels =
                    metrics.counters.map { "\($0.label) \($0.dimensions)" }
                    + metrics.timers.map { "\($0.label) \($0.dimensions)" }
                    + metrics.recorders.map { "\($0.label) \($0.dimensions)" }
                let spans = tracer.finishedSpans.map {
                    "\($0.operationName) \($0.attributes) \($0.errors) \($0.events)"
                }
                let har = try await server.har()
                let outputs: [(String, [String])] = [
                    ("an error", described), ("the log", written), ("a metric", labels), ("a span", spans),
                    ("the HAR export", [har]),
                ]
                for (place, texts) in outputs {
                    for value in planted + Self.served {
                        if let text = texts.first(where: { $0.contains(value) }) {
                            check(false, "\(value.prefix(14))… reached \(place): \(text.prefix(400))")
                        }
                    }
                }
                // Masked, not dropped: a reader still sees what was there.
                check(described.contains { $0.contains("access_token=***") }, "the loop's URL shape")
                check(described.contains { $0.contains(#""refresh_token":"***""#) }, "the 401 body's shape")
                check(written.contains { $0.contains(#""password":"***""#) }, "the curl command's body")
                check(har.contains("***"), "the HAR export masks")
            }
        }
    }
}
