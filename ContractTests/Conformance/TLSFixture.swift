import CourierMockServer
import Foundation
import Subprocess

/// Certificates made for one test by the `openssl` command — a CA, a server
/// certificate for 127.0.0.1 and the names of ``names``, and a client
/// certificate — and a server presenting them on an ephemeral port
/// (courier-mock; `openssl s_server` for mutual TLS).
struct TLSFixture: Sendable {
    let directory: URL
    var caPath: String { directory.appendingPathComponent("ca.pem").path }
    var serverCertificatePath: String { directory.appendingPathComponent("server.pem").path }
    var serverKeyPath: String { directory.appendingPathComponent("server.key").path }
    var clientCertificatePath: String { directory.appendingPathComponent("client.pem").path }
    var clientKeyPath: String { directory.appendingPathComponent("client.key").path }
    /// The server key's pin: `sha256//` and the base64 SHA-256 of its SubjectPublicKeyInfo.
    let serverPin: String
    /// The CA key's pin.
    let caPin: String
    /// Host names the server certificate holds besides 127.0.0.1 (requests
    /// reach them through a host override), for pinning's host patterns.
    static let names = ["pinned.test", "api.pinned.test", "other.pinned.test", "a.b.pinned.test"]

    static func make() async throws -> TLSFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try await run(
            ["req", "-x509"] + key + [
                "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2",
                "-subj", "/CN=Courier Test CA",
            ])
        try ("subjectAltName=IP:127.0.0.1" + names.map { ",DNS:\($0)" }.joined() + "\n").write(
            toFile: path("server.ext"), atomically: true, encoding: .utf8)
        for (name, subject, extensions) in [
            ("server", "/CN=127.0.0.1", ["-extfile", path("server.ext")]),
            ("client", "/CN=courier-client", []),
        ] {
            try await run(
                ["req"] + key + [
                    "-keyout", path("\(name).key"), "-out", path("\(name).csr"),
                    "-subj", subject,
                ])
            try await run(
                [
                    "x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.pem"), "-CAkey",
                    path("ca.key"), "-CAcreateserial", "-out", path("\(name).pem"), "-days", "2",
                ] + extensions)
        }
        var pins: [String] = []
        for name in ["server", "ca"] {
            try await run([
                "pkey", "-in", path("\(name).key"), "-pubout", "-outform", "DER", "-out",
                path("\(name).spki"),
            ])
            let spki = try Data(contentsOf: directory.appendingPathComponent("\(name).spki"))
            pins.append("sha256//" + Data(SHA256Digest.digest(of: spki)).base64EncodedString())
        }
        return TLSFixture(directory: directory, serverPin: pins[0], caPin: pins[1])
    }

    /// Deletes the certificates.
    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Runs `body` with a server on 127.0.0.1 that presents the fixture's
    /// certificate and answers every request with a 200, then stops it:
    /// courier-mock (`MockTLS.files`), or `openssl s_server` when the server
    /// must ask for a client certificate, which courier-mock does not do.
    func withServer<T: Sendable>(
        requireClientCertificate: Bool = false, _ body: (Int) async throws -> T
    ) async throws -> T {
        if !requireClientCertificate {
            var configuration = MockServer.Configuration(
                stubs: try ContractLoader.parse(
                    Array(
                        #"{"mappings": [{"request": {"urlPathPattern": ".*"}, "response": {"status": 200, "body": "ok"}}]}"#
                            .utf8),
                    file: "<tls-fixture>"))
            configuration.tls = .files(certificateChain: serverCertificatePath, privateKey: serverKeyPath)
            return try await withMockServer(configuration) { server in try await body(server.port) }
        }
        let arguments =
            ["s_server", "-accept", "0", "-www", "-cert", serverCertificatePath, "-key", serverKeyPath]
            + (requireClientCertificate ? ["-Verify", "1", "-CAfile", caPath] : [])
        let result = try await Subprocess.run(
            .name("openssl"), arguments: Arguments(arguments),
            input: .none, output: .sequence, error: .discarded
        ) { execution in
            // Stop s_server however the body ends; `run` then waits for it to exit.
            defer { try? execution.send(signal: .terminate) }
            guard let port = try await Self.listeningPort(in: execution.standardOutput) else {
                throw FixtureError("openssl s_server did not start")
            }
            return try await body(port)
        }
        return result.closureResult
    }

    /// The port from s_server's "ACCEPT [::]:PORT" line, or nil when its
    /// output ends first; gives up after two minutes (a safety net for a
    /// loaded machine, never reached when s_server starts).
    private static func listeningPort(in output: SubprocessOutputSequence) async throws -> Int? {
        try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask {
                for try await line in output.strings() where line.hasPrefix("ACCEPT") {
                    return line.split(separator: ":").last.flatMap {
                        Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
                    }
                }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: .seconds(120))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    struct FixtureError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    private static func run(_ arguments: [String]) async throws {
        let result = try await Subprocess.run(
            .name("openssl"), arguments: Arguments(arguments), output: .discarded, error: .discarded)
        guard result.terminationStatus.isSuccess else {
            throw FixtureError("openssl \(arguments.first ?? "") failed: \(result.terminationStatus)")
        }
    }
}
