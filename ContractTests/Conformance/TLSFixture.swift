import CourierMockServer
import Foundation

/// Certificates made for one test by the `openssl` command — a CA, a server
/// certificate for 127.0.0.1 and a client certificate — and `openssl s_server`
/// serving them on an ephemeral port.
struct TLSFixture: Sendable {
    let directory: URL
    var caPath: String { directory.appendingPathComponent("ca.pem").path }
    var serverCertificatePath: String { directory.appendingPathComponent("server.pem").path }
    var serverKeyPath: String { directory.appendingPathComponent("server.key").path }
    var clientCertificatePath: String { directory.appendingPathComponent("client.pem").path }
    var clientKeyPath: String { directory.appendingPathComponent("client.key").path }
    /// The server key's pin: `sha256//` and the base64 SHA-256 of its SubjectPublicKeyInfo.
    let serverPin: String

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
        try "subjectAltName=IP:127.0.0.1\n".write(
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
        try await run([
            "pkey", "-in", path("server.key"), "-pubout", "-outform", "DER", "-out", path("spki.der"),
        ])
        let spki = try Data(contentsOf: directory.appendingPathComponent("spki.der"))
        let pin = "sha256//" + Data(SHA256Digest.digest(of: spki)).base64EncodedString()
        return TLSFixture(directory: directory, serverPin: pin)
    }

    /// Deletes the certificates.
    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Runs `body` with `openssl s_server` listening on 127.0.0.1 and answering
    /// every request with a 200 page, then stops the server.
    func withServer<T: Sendable>(
        requireClientCertificate: Bool = false, _ body: (Int) async throws -> T
    ) async throws -> T {
        let process = Process()
        process.executableURL = try Self.openssl()
        process.arguments =
            ["s_server", "-accept", "0", "-www", "-cert", serverCertificatePath, "-key", serverKeyPath]
            + (requireClientCertificate ? ["-Verify", "1", "-CAfile", caPath] : [])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                continuation.finish()
            } else {
                continuation.yield(String(decoding: data, as: UTF8.self))
            }
        }
        try process.run()
        defer {
            process.terminate()
            output.fileHandleForReading.readabilityHandler = nil
        }
        // s_server prints "ACCEPT [::]:PORT" once it listens; give up after two minutes
        // (a safety net for a loaded machine, never reached when s_server starts).
        let port = try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask {
                var seen = ""
                for await chunk in lines {
                    seen += chunk
                    if let line = seen.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT") }),
                        let port = line.split(separator: ":").last.flatMap({ Int($0) })
                    {
                        return port
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
        guard let port else { throw FixtureError("openssl s_server did not start") }
        return try await body(port)
    }

    struct FixtureError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    private static func openssl() throws -> URL {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin"] {
            let url = URL(fileURLWithPath: directory).appendingPathComponent("openssl")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw FixtureError("the openssl command is missing (scripts/bootstrap installs it)")
    }

    private static func run(_ arguments: [String]) async throws {
        let process = Process()
        process.executableURL = try openssl()
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        guard status == 0 else { throw FixtureError("openssl \(arguments.first ?? "") failed: \(status)") }
    }
}
