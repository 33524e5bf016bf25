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
        subcommands: [Serve.self, Record.self], defaultSubcommand: Serve.self)
}

/// Where a server listens.
struct ListenOptions: ParsableArguments {
    @Option(help: "The address to bind.")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one.")
    var port = 0
}

/// `courier-mock [serve]`: answers from contract files (the default).
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve contract files (the default command).",
        discussion: """
            On start it prints one JSON line: {"listening":{"host":…,"port":…,"url":…}}.
            SIGINT and SIGTERM stop it gracefully.
            """)

    @OptionGroup var listen: ListenOptions

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

    @Option(
        help: """
            An OpenAPI 3.0 or 3.1 document (YAML or JSON): requests are checked against it (a \
            violation gets a 4xx with problem details) and answered from its examples and schemas \
            when no stub takes them.
            """)
    var openapi: String?

    @Option(help: "The seed of the values made from the OpenAPI document's schemas.")
    var seed: UInt64 = 0

    @Option(
        help: """
            A rate limit per client, REQUESTS/SECONDS (e.g. 100/60): announced with the IETF \
            RateLimit and RateLimit-Policy fields, a request over it answered 429 with Retry-After.
            """)
    var rateLimit: String?

    @Option(help: "Who --rate-limit counts a request for: remote (the client's address) or header:NAME.")
    var rateLimitKey = "remote"

    @Flag(
        help: """
            Serve https: with --tls-cert and --tls-key, that certificate; else one made at start, \
            signed by a CA made with it (written to --tls-ca-out). Needs a build with the TLS trait.
            """)
    var tls = false

    @Option(help: "With --tls: the server's certificate (then its chain), PEM.")
    var tlsCert: String?

    @Option(help: "With --tls: the certificate's private key, PEM.")
    var tlsKey: String?

    @Option(
        help: "With --tls and no --tls-cert: where the CA of the certificate made at start is written (PEM).")
    var tlsCaOut: String?

    @Option(
        help: "With --tls and no --tls-cert: another name the certificate made at start holds (repeatable).")
    var tlsHost: [String] = []

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Flag(help: "Let non-loopback clients use /__admin.")
    var allowRemoteAdmin = false

    @Flag(
        inversion: .prefixedNo,
        help: "Record unmatched requests, and requests that break the OpenAPI document, as failures.")
    var strict = true

    @Flag(
        inversion: .prefixedNo,
        help: """
            Refuse with a 400 naming the rule an HTTP/1.x request that RFC 9110, 9112 or 6265 \
            forbids: several Cookie fields, no Host or several, a Host that disagrees with the target.
            """)
    var refuseForbidden = true

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) {
            throw ValidationError("--tls-cert and --tls-key go together")
        }
        if !tls, tlsCert != nil || tlsCaOut != nil || !tlsHost.isEmpty {
            throw ValidationError("--tls-cert, --tls-key, --tls-ca-out and --tls-host need --tls")
        }
        if tlsCert != nil, tlsCaOut != nil || !tlsHost.isEmpty {
            throw ValidationError(
                "--tls-ca-out and --tls-host are for a certificate made at start, not --tls-cert")
        }
        if writeContracts != nil, wiremock == nil {
            throw ValidationError("--write-contracts converts the mappings given with --wiremock")
        }
        if let rateLimit, MockRateLimit(spec: rateLimit, key: rateLimitKey) == nil {
            throw ValidationError(
                "--rate-limit takes REQUESTS/SECONDS (e.g. 100/60) and --rate-limit-key remote or header:NAME"
            )
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError(
                "--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() async throws {
        let logger = Self.logger(logLevel)
        if let wiremock, let writeContracts {
            try Self.convert(
                wiremock: URL(fileURLWithPath: wiremock), to: URL(fileURLWithPath: writeContracts))
            return
        }
        let server: MockServer
        do {
            let imported =
                try wiremock.map { try WireMockImport.load(directory: URL(fileURLWithPath: $0)) } ?? []
            var configuration = MockServer.Configuration(
                host: listen.host, port: listen.port,
                contracts: contracts.map { URL(fileURLWithPath: $0) },
                stubs: imported,
                strict: strict,
                allowRemoteAdmin: allowRemoteAdmin, logger: logger)
            configuration.refusesForbiddenRequests = refuseForbidden
            configuration.openAPI = openapi.map { URL(fileURLWithPath: $0) }
            configuration.openAPISeed = seed
            configuration.rateLimit = rateLimit.flatMap { MockRateLimit(spec: $0, key: rateLimitKey) }
            if tls {
                configuration.tls =
                    if let tlsCert, let tlsKey {
                        .files(certificateChain: tlsCert, privateKey: tlsKey)
                    } else {
                        .generated(hostNames: tlsHost, caOutputPath: tlsCaOut)
                    }
            }
            server = try await MockServer.start(configuration)
        } catch let error as ContractError {
            throw ValidationError("bad contract: \(error)")
        } catch let error as SpecError {
            throw ValidationError("bad OpenAPI document: \(error)")
        } catch let error as MockServerError {
            throw ValidationError("\(error)")
        }
        try Self.announce(server)

        let signal = await Self.waitForTermination()
        logger.info("stopping", metadata: ["signal": "\(signal)"])
        await server.stop()
    }

    /// Prints the one JSON line that says where the server listens.
    static func announce(_ server: MockServer) throws {
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
    }

    /// A logger to standard error at `level`.
    static func logger(_ level: String) -> Logger {
        let level = Logger.Level(rawValue: level) ?? .info
        return Logger(label: "courier-mock") { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
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

/// `courier-mock record`: a recording proxy in front of a real API.
struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Forward every request to a real API and write what it answered as contract files.",
        discussion: """
            Point a client at the address it prints (one JSON line, as serve does); on SIGINT or SIGTERM \
            it writes one contract file per distinct request to --out (repeated requests as a sequence, \
            large bodies in __files/) and stops. Secret header values and JSON fields never reach the \
            files: a `present` matcher or "REDACTED" stands in for them. Serve the directory with \
            `courier-mock --contracts DIR` to replay.
            """)

    @Option(help: "The API to record, e.g. https://api.example.com.")
    var target: String

    @Option(help: "Where the contract files go.")
    var out: String

    @OptionGroup var listen: ListenOptions

    @Option(help: "A PEM file of certificate authorities to trust for the target.")
    var caFile: String?

    @Option(help: "Another request header whose value must not reach the files (repeatable).")
    var secretHeader: [String] = []

    @Option(help: "Another JSON or form field whose value must not reach the files (repeatable).")
    var secretField: [String] = []

    @Option(help: "Another query parameter whose value must not reach the files (repeatable).")
    var secretQuery: [String] = []

    @Option(
        help: """
            An OpenAPI 3.0 or 3.1 document to check every request and the API's every answer \
            against while recording; findings are logged, journaled and, with --strict, make the \
            recording fail.
            """)
    var openapi: String?

    @Flag(help: "Exit with status 1 when an exchange broke the OpenAPI document.")
    var strict = false

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func run() async throws {
        var options = RecordingOptions(target: target, caFile: caFile)
        options.secretHeaders += secretHeader
        options.secretFields += secretField
        options.secretQueryParameters += secretQuery
        var configuration = MockServer.Configuration(
            host: listen.host, port: listen.port, strict: strict, logger: Serve.logger(logLevel),
            recording: options)
        configuration.openAPI = openapi.map { URL(fileURLWithPath: $0) }
        let server: MockServer
        do {
            server = try await MockServer.start(configuration)
        } catch let error as SpecError {
            throw ValidationError("bad OpenAPI document: \(error)")
        } catch let error as RecordingUnavailable {
            throw ValidationError("\(error)")
        }
        try Serve.announce(server)
        _ = await Serve.waitForTermination()
        let written = try server.writeRecording(to: URL(fileURLWithPath: out))
        let broken = server.journal.entries.filter { $0.findings != nil }
        var summary =
            "recorded exchanges: \(server.recordedExchanges); contract files written to \(out): \(written.count)\n"
        if openapi != nil {
            summary += "exchanges that broke the OpenAPI document: \(broken.count)\n"
            for entry in broken {
                for finding in entry.findings ?? [] {
                    summary +=
                        "  \(entry.request.method) \(entry.request.uri) \(finding.rule) \(finding.pointer): \(finding.message)\n"
                }
            }
        }
        FileHandle.standardError.write(Data(summary.utf8))
        await server.stop()
        if strict, !broken.isEmpty { throw ExitCode(1) }
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
