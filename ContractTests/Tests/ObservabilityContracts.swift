import CourierCodable
import CourierCore
import CourierPlugins
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import NIOConcurrencyHelpers
import Testing
import Tracing

/// `observability.json`: CourierPlugins' access token, logging, activity,
/// metrics and tracing plugins together on one client, over every
/// transport — what the server received against what the plugins wrote.
struct ObservabilityContracts {
    @Test(arguments: ContractTransport.allCases)
    func everyPluginAtOnce(kind: ContractTransport) async throws {
        try await contract(
            "plugins: token, logging, activity, metrics and tracing; no secret in the logs", kind
        ) {
            try await ContractServer.with("observability.json") { server in
                let secret = { "S3CR" + UUID().uuidString.replacingOccurrences(of: "-", with: "") }
                let (token, password, queryToken) = (secret(), secret(), secret())
                let handler = InMemoryLogHandler()
                var logger = Logger(label: "contract", factory: { _ in handler })
                logger.logLevel = .trace
                let metrics = TestMetrics()
                let tracer = InMemoryTracer()
                let changes = NIOLockedValueBox<[NetworkActivityPlugin.Change]>([])
                let activity = NetworkActivityPlugin { change, _, _ in
                    changes.withLockedValue { $0.append(change) }
                }
                let client = makeClient(
                    kind, retryPolicy: RetryPolicy(maxAttempts: 3, jitter: .none),
                    plugins: [
                        AccessTokenPlugin { _, _ in token }, LoggingPlugin(logger: logger), activity,
                        MetricsPlugin(factory: metrics), TracingPlugin(tracer: tracer),
                    ])
                let node = server.node()
                let profile = Endpoint<User>(
                    .get("obs/profile"), on: node, query: ["access_token": .string(queryToken)])
                let login = Endpoint<User>(
                    .post("obs/login"), on: node,
                    content: .json(["user": "ada", "password": .string(password)])
                )
                .authorization(.none)
                check(try await client.send(profile).name == "Ada", "profile after a 503")
                check(try await client.send(login).name == "Ada", "login")
                let reset = await expectCourierError("a reset, retried") {
                    try await client.send(Endpoint<User>(.get("obs/reset"), on: node))
                }
                check(reset?.rootCause.code == .transport, "reset: \(String(describing: reset?.code))")

                // The server got the secrets, and each attempt's trace context.
                let journal = try await server.exchanges()
                journal.expectCount("obs-profile", .exactly(2))
                journal.expectHeader("Authorization", .equals("Bearer \(token)"), on: "obs-profile")
                journal.expectHeader("Authorization", .absent, on: "obs-login")
                journal.expectHeader(InMemoryTracer.spanIDKey, .differentAcrossAttempts, on: "obs-profile")
                let loginBody = String(
                    decoding: journal.attempts("obs-login").first?.body ?? [], as: UTF8.self)
                check(loginBody.contains(password), "the password was sent")
                check(
                    journal.attempts("obs-profile").allSatisfy { $0.target.contains(queryToken) },
                    "the query token")

                // The logs: every attempt, no secret — nor the cookie the server set.
                let written = handler.entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
                for value in [token, password, queryToken, "cookie-from-server"] {
                    check(!written.contains(value), "\(value.prefix(8))… reached the log")
                }
                check(written.contains("← 503 GET obs/profile"), "the 503 was logged")
                check(written.contains(#""password":"***""#), "the masked password in the curl line")

                // One began and one ended per call; the metrics and spans add up to the journal.
                check(
                    changes.withLockedValue { $0 } == [.began, .ended, .began, .ended, .began, .ended],
                    "activity")
                check(activity.activeCalls == 0, "nothing active")
                let endpoint = ("endpoint", "GET obs/profile")
                let served = try metrics.expectCounter(
                    "courier_requests_total",
                    [endpoint, ("status_class", "2xx"), ("status", "200"), ("error", "none")])
                let refused = try metrics.expectCounter(
                    "courier_requests_total",
                    [endpoint, ("status_class", "5xx"), ("status", "503"), ("error", "none")])
                let resets = try metrics.expectCounter(
                    "courier_requests_total",
                    [
                        ("endpoint", "GET obs/reset"), ("status_class", "none"), ("status", "none"),
                        ("error", "transport"),
                    ])
                check(
                    served.totalValue == 1 && refused.totalValue == 1 && resets.totalValue == 3,
                    "requests counted")
                let spans = tracer.finishedSpans
                check(spans.filter { $0.kind == .internal }.count == 3, "a span per call")
                check(spans.filter { $0.kind == .client }.count == 6, "a span per attempt: 2 + 1 + 3")
                check(
                    !spans.contains { "\($0.attributes)".contains(queryToken) }, "no token in span attributes"
                )
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func aRefusedRedirectLogsNoSecret(kind: ContractTransport) async throws {
        try await contract("plugins: a redirect loop with a token in its URL; no secret in the logs", kind) {
            try await ContractServer.with("observability.json") { server in
                let handler = InMemoryLogHandler()
                var logger = Logger(label: "contract", factory: { _ in handler })
                logger.logLevel = .trace
                let tracer = InMemoryTracer()
                let client = makeClient(
                    kind, plugins: [LoggingPlugin(logger: logger), TracingPlugin(tracer: tracer)])
                let loop = Endpoint<User>(
                    .get("obs/loop"), on: server.node(), query: ["access_token": "S3CRLOOPTOKEN"])
                let error = await expectCourierError("a redirect loop") { try await client.send(loop) }
                check(error?.rootCause.code == .transport, "refused: \(String(describing: error))")
                // What a user logs of an error, what the logging plugin wrote, what the spans keep.
                let described = [error.map { "\($0)" } ?? "", error?.debugDescription ?? ""]
                let written = handler.entries.map { "\($0.message) \($0.metadata)" }
                let spans = tracer.finishedSpans.map { "\($0.operationName) \($0.attributes) \($0.errors)" }
                for text in described + written + spans {
                    check(!text.contains("S3CRLOOPTOKEN"), "the token reached: \(text.prefix(300))")
                }
                check(
                    described[0].contains("access_token=***") || described[1].contains("access_token=***"),
                    "the error still shows the URL's shape: \(described)")
            }
        }
    }
}
