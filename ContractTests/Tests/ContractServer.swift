@_spi(Transport) import CourierCore
import CourierCurl
import CourierMockServer
import Foundation
import HTTPTypes
import Testing

/// One test's view of the mock server: its own copy of a contract file's
/// stubs under a path prefix no other test uses, and the journal entries
/// those stubs and that prefix saw.
///
/// By default every test starts its own server in-process. With
/// `MOCK_SERVER_URL` set (docker-compose), every test shares that server: the
/// stubs are installed through the admin API under the test's prefix, so
/// parallel tests never share a sequence, a scenario or a journal entry.
struct ContractServer: Sendable {
    /// The base URL of this test's copy of the API, prefix included.
    let baseURL: String
    /// The path prefix of this test (`/c/<tag>`).
    let prefix: String
    /// The suffix added to every stub ID of this test.
    let tag: String
    /// The certificate authority a client must trust (PEM, in a file of its
    /// own), when the server serves https.
    var certificateAuthorityFile: String?
    private let backend: Backend

    private enum Backend: Sendable {
        case local(MockServer)
        case remote(String)
    }

    /// Where contract files live.
    static let contracts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Contracts").standardizedFileURL

    /// Runs `body` with the stubs of `contract` (a file in `ContractTests/Contracts`),
    /// then checks the hygiene every contract owes: no request of the test went
    /// unmatched, and every stub in `required` (and every one the file marks
    /// `"required": true`) was hit.
    /// With `tls`, the server (started here, never a shared remote one)
    /// serves https with a certificate made at start, whose CA is in
    /// ``certificateAuthorityFile``.
    static func with<T: Sendable>(
        _ contract: String, required: [String] = [], tls: Bool = false,
        _ body: (ContractServer) async throws -> T
    ) async throws -> T {
        let tag = String(UUID().uuidString.prefix(8)).lowercased()
        let stubs = try prefixedStubs(contract, prefix: "/c/\(tag)", tag: tag)
        let required =
            required
            + stubs.compactMap { stub -> String? in
                guard stub["required"] as? Bool == true, let id = stub["id"] as? String else { return nil }
                return String(id.dropLast(tag.count + 1))
            }
        return try await serve(stubs, contract: contract, tag: tag, tls: tls) { server in
            let result = try await body(server)
            let journal = try await server.exchanges()
            journal.expectNoUnmatched()
            journal.expectAllHit(required)
            return result
        }
    }

    private static func serve<T: Sendable>(
        _ stubs: [[String: Any]], contract: String, tag: String, tls: Bool,
        _ body: (ContractServer) async throws -> T
    ) async throws -> T {
        let prefix = "/c/\(tag)"
        if !tls, let remote = ProcessInfo.processInfo.environment["MOCK_SERVER_URL"], !remote.isEmpty {
            let root = remote.hasSuffix("/") ? String(remote.dropLast()) : remote
            _ = try await admin(
                root, .post, "/__admin/mappings",
                body: try JSONSerialization.data(
                    withJSONObject: ["mappings": stubs]))
            let server = ContractServer(
                baseURL: root + prefix, prefix: prefix, tag: tag, backend: .remote(root))
            do {
                let result = try await body(server)
                try await server.removeRemoteStubs(stubs)
                return result
            } catch {
                try? await server.removeRemoteStubs(stubs)
                throw error
            }
        }
        let parsed = try ContractLoader.parse(
            Array(try JSONSerialization.data(withJSONObject: ["mappings": stubs])), file: contract)
        var configuration = MockServer.Configuration(stubs: parsed)
        if tls { configuration.tls = .generated() }
        return try await withMockServer(configuration) { server in
            var contractServer = ContractServer(
                baseURL: server.baseURL + prefix, prefix: prefix, tag: tag, backend: .local(server))
            guard let authority = server.certificateAuthorityPEM else {
                return try await body(contractServer)
            }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "courier-mock-ca-\(tag).pem")
            try authority.write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            contractServer.certificateAuthorityFile = file.path
            return try await body(contractServer)
        }
    }

    /// This test's exchanges, in the order the server finished them.
    func exchanges() async throws -> ContractJournal {
        switch backend {
        case .local(let server):
            return ContractJournal(
                server.journal.entries.compactMap { Exchange($0, prefix: prefix, tag: tag) })
        case .remote(let root):
            let data = try await Self.admin(root, .get, "/__admin/requests")
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            let entries = object?["requests"] as? [[String: Any]] ?? []
            return ContractJournal(entries.compactMap { Exchange($0, prefix: prefix, tag: tag) })
        }
    }

    /// The server's journal as courier-mock exports it for people: HAR 1.2
    /// (`GET /__admin/requests/har`), as text.
    func har() async throws -> String {
        let root: String
        switch backend {
        case .local(let server): root = server.baseURL
        case .remote(let remote): root = remote
        }
        return String(decoding: try await Self.admin(root, .get, "/__admin/requests/har"), as: UTF8.self)
    }

    // MARK: - Stubs

    /// The contract's stubs with IDs and paths made unique to one test.
    private static func prefixedStubs(_ contract: String, prefix: String, tag: String) throws -> [[String:
        Any]]
    {
        let url = contracts.appendingPathComponent(contract)
        guard let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any],
            let mappings = object["mappings"] as? [[String: Any]]
        else { throw ContractHarnessError("\(contract) has no mappings") }
        return try mappings.map { mapping in
            var mapping = mapping
            guard let id = mapping["id"] as? String, var request = mapping["request"] as? [String: Any] else {
                throw ContractHarnessError("every stub in \(contract) needs an id and a request")
            }
            mapping["id"] = "\(id)@\(tag)"
            if let name = mapping["scenarioName"] as? String { mapping["scenarioName"] = "\(name)@\(tag)" }
            if let path = request["urlPath"] as? String {
                request["urlPath"] = prefix + path
            } else if let template = request["urlPathTemplate"] as? String {
                request["urlPathTemplate"] = prefix + template
            } else if let pattern = request["urlPathPattern"] as? String {
                request["urlPathPattern"] = NSRegularExpression.escapedPattern(for: prefix) + pattern
            } else if let exact = request["url"] as? String {
                request["url"] = prefix + exact
            } else {
                throw ContractHarnessError("stub \(id) in \(contract) matches no path")
            }
            mapping["request"] = request
            return mapping
        }
    }

    private func removeRemoteStubs(_ stubs: [[String: Any]]) async throws {
        guard case .remote(let root) = backend else { return }
        for stub in stubs {
            if let id = stub["id"] as? String {
                _ = try await Self.admin(root, .delete, "/__admin/mappings/\(id)")
            }
        }
    }

    private static func admin(_ root: String, _ method: HTTPRequest.Method, _ path: String, body: Data? = nil)
        async throws -> Data
    {
        guard let url = URL(string: root + path) else { throw ContractHarnessError("bad URL \(root + path)") }
        var head = HTTPRequest(method: method, url: url)
        if body != nil { head.headerFields[.contentType] = "application/json" }
        let response = try await CurlTransport.shared.send(
            OutgoingRequest(head: head, body: body.map { RequestBody(bytes: Array($0)) }),
            options: .init(timeout: contractSafetyNet))
        guard (200..<300).contains(response.statusCode) else {
            throw ContractHarnessError(
                "admin \(method) \(path): \(response.statusCode) \(String(decoding: response.body.bytes ?? [], as: UTF8.self))"
            )
        }
        return Data(response.body.bytes ?? [])
    }
}

/// The harness could not do its part (not a contract failure).
struct ContractHarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
