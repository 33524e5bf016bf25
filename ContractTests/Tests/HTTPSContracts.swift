import CourierAsyncHTTPClient
import CourierCodable
import CourierCore
import CourierCurl
import CourierTLS
import CourierTesting
import CourierURLSession
import Testing

/// Contracts over https: courier-mock serves TLS with a certificate it made
/// at start (`MockTLS.generated`), and each transport trusts its CA by
/// configuration, nothing else — the envelope's success, a business error,
/// a truncated body, a POST and its body, all seen by the server as TLS.
/// URLSessionTransport cannot trust a private CA (FoundationNetworking
/// never hands it the server's trust): it refuses the setting with a typed
/// error, before anything is sent.
struct HTTPSContracts {
    @Test(arguments: ContractTransport.allCases)
    func theEnvelopeOverHTTPS(kind: ContractTransport) async throws {
        try await contract("https: the envelope with a CA trusted by configuration", kind) {
            try await ContractServer.with("envelope.json", tls: true) { server in
                check(server.baseURL.hasPrefix("https://"), "the server speaks https: \(server.baseURL)")
                let ca = try #require(server.certificateAuthorityFile)
                guard let transport = try await Self.transport(kind, trusting: ca) else { return }
                // Shut down before the server stops, however the exchanges end.
                do {
                    try await Self.exchange(makeClient(kind, transport: transport), server)
                } catch {
                    await Self.shut(transport)
                    throw error
                }
                await Self.shut(transport)
                let journal = try await server.exchanges()
                check(journal.all.count == 3, "three exchanges: \(journal.all.count)")
                check(journal.all.allSatisfy(\.tls), "every exchange over TLS")
                check(journal.all.allSatisfy { $0.version == "HTTP/1.1" }, "HTTP/1.1 (ALPN)")
            }
        }
    }

    /// An untrusted certificate is refused with a typed `.tls` failure and
    /// nothing reaches the server's HTTP.
    @Test(arguments: ContractTransport.allCases)
    func anUntrustedCertificateIsRefused(kind: ContractTransport) async throws {
        try await contract("https: the server's own CA not trusted", kind) {
            try await ContractServer.with("envelope.json", tls: true) { server in
                let error = await expectCourierError("untrusted") {
                    try await makeClient(kind).send(Endpoint<User>(.get("user"), on: server.node()))
                }
                check(error?.code == .transport, "a transport failure: \(String(describing: error))")
                check(
                    (error?.underlying as? TransportError)?.code == .tls,
                    "named as TLS: \(String(describing: error?.underlying))")
                check(try await server.exchanges().all.isEmpty, "no request reached HTTP")
            }
        }
    }

    /// The envelope's success, a business error and a truncated body, over https.
    static func exchange(_ client: APIClient, _ server: ContractServer) async throws {
        let user = try await client.send(Endpoint<User>(.get("user"), on: server.node()))
        check(user == User(id: 7, name: "Ada"), "decoded \(user)")
        let refused = await expectCourierError("forbidden") {
            try await client.send(Endpoint<User>(.get("forbidden"), on: server.node()))
        }
        check(
            refused?.businessFailure?.code == .int(4003),
            "business code: \(String(describing: refused))")
        let truncated = await expectCourierError("truncated") {
            try await client.send(Endpoint<User>(.get("truncated"), on: server.node()))
        }
        check(truncated?.code == .envelope, "truncated: \(String(describing: truncated))")
    }

    /// The transport of `kind` trusting the CA in `file`; `nil` (after
    /// checking the typed refusal) for a transport that cannot.
    static func transport(_ kind: ContractTransport, trusting file: String) async throws -> (any Transport)? {
        let tls = TLSSettings(caBundlePath: file)
        switch kind {
        case .curl:
            // A connect timeout (the TLS handshake included) only a hang reaches.
            return try CurlTransport(configuration: .init(connectTimeoutMilliseconds: 600_000, tls: tls))
        case .asyncHTTPClient:
            var configuration = ContractTransport.asyncHTTPClientConfiguration
            configuration.tls = tls
            return try AsyncHTTPClientTransport(configuration: configuration)
        case .urlSession:
            do {
                _ = try URLSessionTransport(tls: tls)
                check(false, "URLSessionTransport accepted a CA it cannot apply")
            } catch {
                check(error.code == .unsupported, "refused typed: \(error)")
            }
            return nil
        }
    }

    static func shut(_ transport: any Transport) async {
        if let curl = transport as? CurlTransport { await curl.shutdown() }
        if let ahc = transport as? AsyncHTTPClientTransport { await ahc.shutdown() }
    }
}
