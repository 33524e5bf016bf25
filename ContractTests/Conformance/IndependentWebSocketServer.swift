@_spi(Locking) import CourierCore
import Foundation

/// Debian's `python3-websockets` serving `Fixtures/websocket/independent_server.py`
/// for one test: a WebSocket implementation that is neither Courier's nor
/// courier-mock's, for the RFC 6455 behaviours the mock could get wrong with
/// the client (masking, fragments with control frames between them, close
/// codes). It picks its own port and says it when it listens.
final class IndependentWebSocketServer: Sendable {
    let port: Int
    /// Whether it speaks wss (with a ``TLSFixture``'s server certificate).
    let secure: Bool
    private let process: TestServerProcess

    private init(port: Int, secure: Bool, process: TestServerProcess) {
        self.port = port
        self.secure = secure
        self.process = process
    }

    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts the server; with `tls`, over TLS with its server certificate.
    static func start(tls: TLSFixture? = nil) async throws -> IndependentWebSocketServer {
        let python = "/usr/bin/python3"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/websocket/independent_server.py").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Unavailable(description: "no \(python): run scripts/bootstrap python3-websockets")
        }
        let announced = Locked<Int?>(nil)
        do {
            let arguments =
                [script] + (tls.map { ["--tls", $0.serverCertificatePath, $0.serverKeyPath] } ?? [])
            let process = try await TestServerProcess.start(python, arguments) { line in
                guard line.hasPrefix("ready "), let port = Int(line.dropFirst(6)) else { return false }
                announced.withLock { $0 = port }
                return true
            }
            guard let port = announced.withLock({ $0 }) else {
                await process.stop()
                throw Unavailable(description: "the server said it was ready without a port")
            }
            return IndependentWebSocketServer(port: port, secure: tls != nil, process: process)
        } catch let early as TestServerProcess.ExitedEarly {
            throw Unavailable(
                description:
                    "the python3-websockets server exited (run scripts/bootstrap python3-websockets):\n"
                    + early.lines.joined(separator: "\n"))
        }
    }

    func stop() async { await process.stop() }

    var baseURL: String { "\(secure ? "https" : "http")://127.0.0.1:\(port)" }
}

/// Runs `body` with a fresh independent server, stopped whatever happens.
func withIndependentWebSocketServer<T: Sendable>(
    tls: TLSFixture? = nil, _ body: (IndependentWebSocketServer) async throws -> T
) async throws -> T {
    let server = try await IndependentWebSocketServer.start(tls: tls)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
