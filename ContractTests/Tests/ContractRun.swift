import CourierAsyncHTTPClient
import CourierCore
import CourierCurl
import CourierURLSession
import Foundation
import NIOConcurrencyHelpers
import Synchronization
import Testing

/// The transports every contract runs over.
enum ContractTransport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case curl = "CourierCurl"
    case urlSession = "CourierURLSession"
    case asyncHTTPClient = "CourierAsyncHTTPClient"

    /// Every transport, or only those named in `COURIER_TRANSPORTS`
    /// (`curl,urlSession,asyncHTTPClient`), as ``TransportKind/allCases``.
    /// A name that is no transport's (the conformance suite's
    /// `curlPollLoop` is one) stops the run: a mistyped list would
    /// otherwise run every contract over no transport at all.
    static var allCases: [ContractTransport] {
        let every: [ContractTransport] = [.curl, .urlSession, .asyncHTTPClient]
        guard let list = ProcessInfo.processInfo.environment["COURIER_TRANSPORTS"] else { return every }
        let chosen = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let known = every.map(\.shortName) + ["curlPollLoop"]
        let unknown = chosen.filter { !known.contains($0) }
        guard unknown.isEmpty, !chosen.isEmpty else {
            fatalError(
                "COURIER_TRANSPORTS=\(list) names no transport in \(unknown); use \(known.joined(separator: ","))"
            )
        }
        return every.filter { chosen.contains($0.shortName) }
    }

    /// The name `COURIER_TRANSPORTS` uses.
    var shortName: String {
        switch self {
        case .curl: "curl"
        case .urlSession: "urlSession"
        case .asyncHTTPClient: "asyncHTTPClient"
        }
    }

    var testDescription: String { rawValue }

    /// The shared transport of this kind.
    var transport: any Transport {
        switch self {
        case .curl: CurlTransport.shared
        case .urlSession: URLSessionTransport.shared
        case .asyncHTTPClient: Self.sharedAsyncHTTPClient
        }
    }

    /// async-http-client's transport for these suites: its connect timeout
    /// (which async-http-client also applies to a wait for a pooled
    /// connection) is a safety net a loaded machine cannot miss — every
    /// suite at once under ThreadSanitizer on two cores starved a 10 s one.
    /// What the contracts time is each call's own deadline.
    static let asyncHTTPClientConfiguration = AsyncHTTPClientTransport.Configuration(
        connectTimeout: .seconds(120))

    private static let sharedAsyncHTTPClient: AsyncHTTPClientTransport = {
        do {
            return try AsyncHTTPClientTransport(configuration: asyncHTTPClientConfiguration)
        } catch {
            preconditionFailure("async-http-client could not be set up: \(error)")
        }
    }()

    /// A new transport with no open connections, shut down by `body`'s end.
    func withFresh<T: Sendable>(_ body: (any Transport) async throws -> T) async throws -> T {
        switch self {
        case .curl:
            return try await withCurlTransport { try await body($0) }
        case .urlSession:
            let transport = URLSessionTransport()
            defer { transport.shutdown() }
            return try await body(transport)
        case .asyncHTTPClient:
            return try await withAsyncHTTPClientTransport(configuration: Self.asyncHTTPClientConfiguration) {
                try await body($0)
            }
        }
    }
}

/// Whether the contract being run has failed so far; assertions mark it.
final class ContractOutcome: Sendable {
    private let failed = NIOLockedValueBox(false)
    @TaskLocal static var current: ContractOutcome?

    func fail() { failed.withLockedValue { $0 = true } }
    var hasFailed: Bool { failed.withLockedValue { $0 } }

    /// Marks the running contract failed.
    static func markFailed() { current?.fail() }
}

/// Runs one contract over one transport and records the outcome for the
/// summary table. `urlSessionGap` skips it on URLSession, saying why; use it
/// only for a gap documented in `Modules/CourierURLSession/README.md`.
func contract(
    _ name: String, _ kind: ContractTransport, urlSessionGap: String? = nil,
    _ body: () async throws -> Void
) async throws {
    if kind == .urlSession, let gap = urlSessionGap {
        print("contract \(name) skipped on CourierURLSession (documented gap: \(gap))")
        ContractSummary.shared.record(name, kind, .skipped(gap))
        return
    }
    let outcome = ContractOutcome()
    do {
        try await ContractOutcome.$current.withValue(outcome) { try await body() }
    } catch {
        ContractSummary.shared.record(name, kind, .failed)
        throw error
    }
    ContractSummary.shared.record(name, kind, outcome.hasFailed ? .failed : .passed)
}

/// Records an issue (and fails the running contract) unless `condition` holds.
@discardableResult
func check(
    _ condition: Bool, _ message: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    if !condition {
        ContractOutcome.markFailed()
        Issue.record(Comment(rawValue: message()), sourceLocation: sourceLocation)
    }
    return condition
}

/// Runs `body`, failing with ``ContractHarnessError`` if it takes longer than
/// `limit`: a safety net so that no wait in a contract can hang the suite.
func withDeadline<T: Sendable>(
    _ what: String, limit: Duration = contractSafetyNet, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw ContractHarnessError("\(what) did not happen within \(limit)")
        }
        return value
    }
}

/// Runs `body`, which must fail with a ``CourierError``; returns it.
func expectCourierError<T>(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async -> CourierError? {
    do {
        let value = try await body()
        check(false, "\(what): expected a CourierError, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch let error as CourierError {
        return error
    } catch {
        check(
            false, "\(what): expected a CourierError, got \(type(of: error)): \(error)",
            sourceLocation: sourceLocation)
        return nil
    }
}

/// Contracts × transports, printed when the test process exits.
final class ContractSummary: Sendable {
    enum Result: Sendable {
        case passed, failed
        case skipped(String)
    }

    static let shared = ContractSummary()
    private let results = NIOLockedValueBox<[String: [ContractTransport: Result]]>([:])

    private init() {
        atexit { ContractSummary.shared.printTable() }
    }

    func record(_ name: String, _ kind: ContractTransport, _ result: Result) {
        results.withLockedValue { $0[name, default: [:]][kind] = result }
    }

    /// A Markdown table: one row per contract, one column per transport.
    var table: String {
        let rows = results.withLockedValue { $0 }
        guard !rows.isEmpty else { return "" }
        var lines = [
            "| contract | " + ContractTransport.allCases.map(\.rawValue).joined(separator: " | ") + " |",
            "|---|" + String(repeating: "---|", count: ContractTransport.allCases.count),
        ]
        for name in rows.keys.sorted() {
            let cells = ContractTransport.allCases.map { kind -> String in
                switch rows[name]?[kind] {
                case .passed: "pass"
                case .failed: "**FAIL**"
                case .skipped(let gap): "skipped (gap: \(gap))"
                case nil: "not run"
                }
            }
            lines.append("| \(name) | " + cells.joined(separator: " | ") + " |")
        }
        let counts = rows.values.flatMap(\.values)
        let passed = counts.filter { if case .passed = $0 { true } else { false } }.count
        let failed = counts.filter { if case .failed = $0 { true } else { false } }.count
        lines.append("")
        lines.append(
            "\(rows.count) contracts, \(counts.count) runs: \(passed) passed, \(failed) failed, "
                + "\(counts.count - passed - failed) skipped"
        )
        return lines.joined(separator: "\n")
    }

    func printTable() {
        let table = self.table
        guard !table.isEmpty else { return }
        // Written straight to the descriptor: the process is exiting and
        // stdout's buffer may not be flushed again.
        let text = Array(("\nContracts × transports\n\n" + table + "\n").utf8)
        text.withUnsafeBytes { _ = write(1, $0.baseAddress, $0.count) }
    }
}
