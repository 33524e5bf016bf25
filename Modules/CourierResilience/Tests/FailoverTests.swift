@_spi(Locking) import CourierCore
import CourierResilience
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// A node's failover: an attempt that reached no server goes to the next
/// base URL, rebased onto its path and query; one that may have reached a
/// server never moves; each move is told to the monitors.
struct FailoverTests {
    /// Writes each move as one line.
    final class Moves: EventMonitor {
        private let lines = Locked<[String]>([])
        var recorded: [String] { lines.withLock { $0 } }
        func callEvent(_ event: CallEvent) {
            guard case .failedOver(let from, let to, let failure) = event.kind else { return }
            lines.withLock {
                $0.append(
                    "\(from.authority ?? "") → \(to.authority ?? "")\(to.path ?? "") after \(failure.code)")
            }
        }
    }

    static let node = Node(
        "api", baseURLs: ["https://a.example/v1?key=1", "https://b.example/api/v2", "http://c.example:8080"],
        failover: .primaryFirst)

    /// A transport where `down` hosts refuse connections (or fail with
    /// `failure`) and every other one answers 200 naming itself.
    static func transport(down: Set<String>, failure: TransportError.Code = .connectionFailed)
        -> RecordingTransport
    {
        RecordingTransport(
            StubTransport { request in
                let host = request.head.authority ?? ""
                return down.contains(host) ? .failure(failure, "\(host) is down") : .text(host)
            })
    }

    static func client(_ transport: any Transport, monitor: Moves, retryPolicy: RetryPolicy = .never)
        -> APIClient
    {
        var configuration = APIClient.Configuration(transport: transport, retryPolicy: retryPolicy)
        configuration.eventMonitors = [monitor]
        return APIClient(configuration: configuration)
    }

    @Test func anUnreachablePrimaryMovesToTheNextRebased() async throws {
        let transport = Self.transport(down: ["a.example", "b.example"])
        let moves = Moves()
        let endpoint = Endpoint<RawResponse>(.get("users/7"), on: Self.node).adding(query: ["q": "x"])
        let response = try await Self.client(transport, monitor: moves).send(endpoint)
        #expect(response.body.bytes == Array("c.example:8080".utf8))
        #expect(
            transport.records.map {
                "\($0.head.scheme ?? "")://\($0.head.authority ?? "")\($0.head.path ?? "")"
            }
                == [
                    "https://a.example/v1/users/7?key=1&q=x", "https://b.example/api/v2/users/7?q=x",
                    "http://c.example:8080/users/7?q=x",
                ])
        #expect(
            moves.recorded == [
                "a.example → b.example/api/v2/users/7?q=x after transport",
                "b.example → c.example:8080/users/7?q=x after transport",
            ])
    }

    /// A POST moves where nothing was sent; after a reset (the server may
    /// have seen it) it does not, and neither does a GET.
    @Test(arguments: [HTTPRequest.Method.post, .get])
    func onlyWhatNeverReachedAServerMoves(method: HTTPRequest.Method) async throws {
        let endpoint = Endpoint<RawResponse>(Route(method, "orders"), on: Self.node, content: .json(["n": 1]))
        let refused = Self.transport(down: ["a.example"])
        let moved = try await Self.client(refused, monitor: Moves()).send(endpoint)
        #expect(moved.body.bytes == Array("b.example".utf8))

        let reset = Self.transport(down: ["a.example"], failure: .connectionReset)
        let error = await #expect(throws: CourierError.self) {
            try await Self.client(reset, monitor: Moves()).send(endpoint)
        }
        #expect((error?.underlying as? TransportError)?.code == .connectionReset)
        #expect(reset.records.map(\.head.authority) == ["a.example"])
    }

    @Test func roundRobinStartsEachAttemptOneFurther() async throws {
        let node = Node("peers", baseURLs: ["http://a.example", "http://b.example"], failover: .roundRobin)
        let transport = Self.transport(down: [])
        let client = Self.client(transport, monitor: Moves())
        for _ in 0..<4 { _ = try await client.send(Endpoint<RawResponse>(.get("x"), on: node)) }
        let hosts = transport.records.compactMap(\.head.authority)
        #expect(Set(hosts) == ["a.example", "b.example"])
        #expect(zip(hosts, hosts.dropFirst()).allSatisfy { $0 != $1 }, "\(hosts)")
    }

    /// With every server down the attempt ends with the last one's error,
    /// and the retry policy then decides as it always does.
    @Test func everyServerDownEndsWithTheLastFailureAndRetriesAsUsual() async throws {
        let transport = Self.transport(down: ["a.example", "b.example", "c.example:8080"])
        let policy = RetryPolicy(maxAttempts: 2, backoff: .constant(.zero), jitter: .none)
        let moves = Moves()
        let error = await #expect(throws: CourierError.self) {
            try await Self.client(transport, monitor: moves, retryPolicy: policy).send(
                Endpoint<RawResponse>(.get("x"), on: Self.node))
        }
        #expect(error?.description.contains("c.example:8080 is down") == true, "\(String(describing: error))")
        #expect(transport.records.count == 6)
        #expect(moves.recorded.count == 4)
    }

    /// An interceptor that sends the request elsewhere chose its server:
    /// nothing moves.
    @Test func aRequestAnInterceptorReroutedDoesNotMove() async throws {
        let transport = Self.transport(down: ["elsewhere.example"])
        var configuration = APIClient.Configuration(transport: transport)
        configuration.callInterceptors = [
            .intercept { request, _, next in
                var request = request
                request.head.authority = "elsewhere.example"
                return try await next(request)
            }
        ]
        await #expect(throws: CourierError.self) {
            try await APIClient(configuration: configuration).send(
                Endpoint<RawResponse>(.get("x"), on: Self.node))
        }
        #expect(transport.records.count == 1)
    }

    @Test func anInvalidAlternateIsATypedError() async throws {
        let node = Node("api", baseURLs: ["http://a.example", "ftp://b.example"], failover: .primaryFirst)
        let error = await #expect(throws: CourierError.self) {
            try await Self.client(Self.transport(down: ["a.example"]), monitor: Moves()).send(
                Endpoint<RawResponse>(.get("x"), on: node))
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("failover URL") == true)
    }

    @Test func nodesCompareByTheirFailover() {
        let one = Node("api", baseURLs: ["http://a.example", "http://b.example"], failover: .primaryFirst)
        let other = Node("api", baseURLs: ["http://a.example", "http://b.example"], failover: .roundRobin)
        #expect(one != other)
        #expect(
            one == Node("api", baseURLs: ["http://a.example", "http://b.example"], failover: .primaryFirst))
    }
}
