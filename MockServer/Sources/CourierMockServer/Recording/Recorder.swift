import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

#if Recording
    import AsyncHTTPClient
    import NIOSSL
#endif

/// What a recording forwards to and keeps out of the files.
public struct RecordingOptions: Sendable {
    /// The real API: `https://api.example.com` (a path prefix is kept).
    public var target: String
    /// A PEM file of certificate authorities to trust for the target (a
    /// private CA); `nil` trusts the system's.
    public var caFile: String?
    /// Request headers whose values never reach the files: a matcher that
    /// the header is `present` stands in for them.
    public var secretHeaders: [String]
    /// Query parameters whose values never reach the files: a matcher that
    /// the parameter is `present` stands in for them; in a recorded
    /// `Location`, the value reads `REDACTED`.
    public var secretQueryParameters: [String]
    /// JSON fields (at any depth, request and response bodies) and form
    /// fields whose values never reach the files: left out of request
    /// matchers, replaced by `"REDACTED"` in recorded answers.
    public var secretFields: [String]
    /// Bodies larger than this go to `__files/` instead of the contract file.
    public var bodyFileThreshold: Int
    /// How long one forwarded exchange may take, connecting (and the TLS
    /// handshake) included, before the client gets a 502: 60 s.
    public var timeout: Duration

    /// Options for recording `target`; the secret names default to
    /// ``SecretMask/standard`` (Courier's `Redaction.standard`).
    public init(
        target: String, caFile: String? = nil,
        secretHeaders: [String] = SecretMask.standard.headers.sorted(),
        secretQueryParameters: [String] = SecretMask.standard.queryParameters.sorted(),
        secretFields: [String] = SecretMask.standard.bodyFields.sorted(),
        bodyFileThreshold: Int = 4096, timeout: Duration = .seconds(60)
    ) {
        self.target = target.hasSuffix("/") ? String(target.dropLast()) : target
        self.caFile = caFile
        self.secretHeaders = secretHeaders
        self.secretQueryParameters = secretQueryParameters
        self.secretFields = secretFields
        self.bodyFileThreshold = bodyFileThreshold
        self.timeout = timeout
    }
}

/// One request forwarded and the answer the target gave.
struct RecordedExchange: Sendable {
    let request: RecordedRequest
    let response: StubResponse
}

/// What a courier-mock built without the Recording trait says when asked
/// to record (the command line's `record`, the admin API's
/// `recordings/start`), instead of a build that silently cannot.
public struct RecordingUnavailable: Error, CustomStringConvertible {
    /// What to do: build with the trait.
    public var description: String {
        "courier-mock was built without recording: build it with the Recording trait "
            + "(swift build --package-path MockServer --traits Recording --product courier-mock)"
    }
}

#if Recording
    /// Forwards every request to the target, answers the client with what the
    /// target said, and keeps each exchange for ``RecordingWriter``.
    final class Recorder: Sendable {
        let options: RecordingOptions
        private let client: HTTPClient
        private let exchanges = NIOLockedValueBox<[RecordedExchange]>([])
        /// The largest answer forwarded.
        static let largestBody = 64 * 1024 * 1024
        /// Hop-by-hop and framing fields: neither forwarded nor recorded.
        static let hopByHop: Set<String> = [
            "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer",
            "content-length", "host",
        ]

        init(_ options: RecordingOptions) throws {
            self.options = options
            var tls = TLSConfiguration.makeClientConfiguration()
            if let caFile = options.caFile { tls.trustRoots = .file(caFile) }
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: tls, redirectConfiguration: .disallow, decompression: .disabled)
            configuration.httpVersion = .http1Only
            // A refused certificate or connection is the client's 502 at once:
            // async-http-client would otherwise retry the connection until the
            // connect timeout passed and answer with that instead.
            configuration.connectionPool.retryConnectionEstablishment = false
            // The connect has the whole exchange's time, not async-http-client's 10 s.
            configuration.timeout = HTTPClient.Configuration.Timeout(
                connect: Self.timeAmount(options.timeout))
            client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        }

        /// The exchanges so far, in order.
        var recorded: [RecordedExchange] { exchanges.withLockedValue { $0 } }

        /// Sends `request` on to the target and returns its answer (a 502 that
        /// says why when the target cannot be reached); the exchange is kept.
        func forward(_ request: RecordedRequest) async -> StubResponse {
            var outgoing = HTTPClientRequest(url: options.target + request.uri)
            outgoing.method = HTTPMethod(rawValue: request.method)
            for header in request.headers where !Self.hopByHop.contains(header.name.lowercased()) {
                outgoing.headers.add(name: header.name, value: header.value)
            }
            if !request.body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: request.body)) }
            let timeout = Self.timeAmount(options.timeout)
            do {
                let answer = try await client.execute(outgoing, timeout: timeout)
                var body = try await answer.body.collect(upTo: Self.largestBody)
                let bytes = body.readBytes(length: body.readableBytes) ?? []
                let headers = answer.headers.filter { !Self.hopByHop.contains($0.name.lowercased()) }
                let response = StubResponse(
                    status: Int(answer.status.code), headers: headers.map { ($0.name, $0.value) }, body: bytes
                )
                exchanges.withLockedValue {
                    $0.append(RecordedExchange(request: request, response: response))
                }
                return response
            } catch {
                return .json(
                    .object(["error": .string("recording: the target did not answer: \(error)")]), status: 502
                )
            }
        }

        private static func timeAmount(_ duration: Duration) -> TimeAmount {
            let (seconds, attoseconds) = duration.components
            return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        }

        /// Closes the client's connections.
        func shutdown() async { try? await client.shutdown() }
    }

#else
    /// Recording, left out of this build: making one fails with
    /// ``RecordingUnavailable``.
    final class Recorder: Sendable {
        let options: RecordingOptions

        init(_ options: RecordingOptions) throws {
            throw RecordingUnavailable()
        }

        var recorded: [RecordedExchange] { [] }

        func forward(_ request: RecordedRequest) async -> StubResponse {
            .json(.object(["error": .string("\(RecordingUnavailable())")]), status: 502)
        }

        func shutdown() async {}
    }
#endif
