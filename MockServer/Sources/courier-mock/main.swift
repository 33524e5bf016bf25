import ArgumentParser
import CourierMockServer
import Dispatch
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `courier-mock`: the mock server as a program, for docker-compose and manual use.
@main
struct CourierMock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier-mock",
        abstract: "A mock HTTP server driven by contract files, with socket-level faults and a journal.",
        discussion: """
            On start it prints one JSON line: {"listening":{"host":…,"port":…,"url":…}}.
            SIGINT and SIGTERM stop it gracefully.
            """)

    @Option(help: "The address to bind.")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one.")
    var port = 0

    @Option(help: "A directory of contract files (*.json; bodies in __files/).")
    var contracts: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Flag(help: "Let non-loopback clients use /__admin.")
    var allowRemoteAdmin = false

    @Flag(inversion: .prefixedNo, help: "Record unmatched requests as failures.")
    var strict = true

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError(
                "--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let logger = Logger(label: "courier-mock") { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let server: MockServer
        do {
            server = try await MockServer.start(
                .init(
                    host: host, port: port, contracts: contracts.map { URL(fileURLWithPath: $0) },
                    strict: strict,
                    allowRemoteAdmin: allowRemoteAdmin, logger: logger))
        } catch let error as ContractError {
            throw ValidationError("bad contract: \(error)")
        }
        struct Listening: Encodable {
            struct Address: Encodable {
                let host: String
                let port: Int
                let url: String
            }
            let listening: Address
        }
        let line = Listening(listening: .init(host: server.host, port: server.port, url: server.baseURL))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        FileHandle.standardOutput.write(try encoder.encode(line) + Data("\n".utf8))

        let signal = await Self.waitForTermination()
        logger.info("stopping", metadata: ["signal": "\(signal)"])
        await server.stop()
    }

    /// Suspends until SIGINT or SIGTERM arrives; returns the signal's name.
    static func waitForTermination() async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let queue = DispatchQueue(label: "courier-mock.signals")
            let once = Once(continuation)
            for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { once.resume(name) }
                source.resume()
                once.keep(source)
            }
        }
    }
}

/// Resumes a continuation at most once, from whichever signal comes first,
/// and keeps the signal sources alive while it waits.
private final class Once: Sendable {
    private let state: Mutex<(CheckedContinuation<String, Never>?, [any DispatchSourceSignal])>

    init(_ continuation: CheckedContinuation<String, Never>) {
        self.state = Mutex((continuation, []))
    }

    func keep(_ source: any DispatchSourceSignal) { state.withLock { $0.1.append(source) } }

    func resume(_ name: String) {
        let continuation = state.withLock { state in
            defer { state.0 = nil }
            return state.0
        }
        continuation?.resume(returning: name)
    }
}
