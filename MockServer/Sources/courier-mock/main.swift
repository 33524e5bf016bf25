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

    @Option(
        help: """
            A WireMock root (mappings/ and __files/) or a directory of WireMock mapping files, served \
            beside the contracts; a key courier-mock does not share is refused, naming the file and key.
            """)
    var wiremock: String?

    @Option(
        help: """
            With --wiremock: write the mappings as courier-mock contract files to this directory \
            (one per WireMock file, __files/ copied) and exit.
            """)
    var writeContracts: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Flag(help: "Let non-loopback clients use /__admin.")
    var allowRemoteAdmin = false

    @Flag(inversion: .prefixedNo, help: "Record unmatched requests as failures.")
    var strict = true

    func validate() throws {
        if writeContracts != nil, wiremock == nil {
            throw ValidationError("--write-contracts converts the mappings given with --wiremock")
        }
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
        if let wiremock, let writeContracts {
            try Self.convert(
                wiremock: URL(fileURLWithPath: wiremock), to: URL(fileURLWithPath: writeContracts))
            return
        }
        let server: MockServer
        do {
            let imported =
                try wiremock.map { try WireMockImport.load(directory: URL(fileURLWithPath: $0)) } ?? []
            server = try await MockServer.start(
                .init(
                    host: host, port: port, contracts: contracts.map { URL(fileURLWithPath: $0) },
                    stubs: imported,
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

    /// Writes each WireMock mapping file as a contract file, checked by the
    /// contract parser first; prints one line per file.
    static func convert(wiremock: URL, to output: URL) throws {
        let documents: [(file: String, document: JSONValue)]
        do {
            documents = try WireMockImport.converted(directory: wiremock)
            for (file, document) in documents {
                _ = try ContractLoader.parse(
                    document.jsonBytes, file: file, filesDirectory: WireMockImport.filesDirectory(wiremock))
            }
        } catch {
            throw ValidationError("cannot import: \(error)")
        }
        let files = FileManager.default
        for (file, document) in documents {
            let target = output.appendingPathComponent(file)
            try files.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(document.jsonBytes).write(to: target)
            print("wrote \(target.path)")
        }
        let bodies = WireMockImport.filesDirectory(wiremock)
        let copy = output.appendingPathComponent("__files")
        if files.fileExists(atPath: bodies.path), !files.fileExists(atPath: copy.path) {
            try files.copyItem(at: bodies, to: copy)
        }
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
