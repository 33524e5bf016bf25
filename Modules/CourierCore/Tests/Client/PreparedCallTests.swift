@_spi(Locking) import CourierCore
import CourierTestSupport
import CourierTesting
import CourierTransfers
import HTTPTypes
import Testing

/// `APIClient.prepare`: a call that starts when told.
struct PreparedCallTests {
    static let endpoint = Endpoint<RawResponse>(.get("report"), on: .api)

    /// Records each completion.
    final class Completions: Sendable {
        let results = Locked<[Result<RawResponse, CourierError>]>([])
        func record(_ result: Result<RawResponse, CourierError>) { results.withLock { $0.append(result) } }
        var errors: [CourierError] {
            results.withLock { $0.compactMap { if case .failure(let error) = $0 { error } else { nil } } }
        }
    }

    @Test func nothingIsSentUntilResume() async throws {
        let transport = HeldTransport()
        let client = APIClient(transport: transport)
        let completions = Completions()
        let call = client.prepare(Self.endpoint, completion: completions.record)
        // The call's task has had every chance to run: one call made and
        // answered after it shows that the prepared one sent nothing.
        let other = Task { try await client.send(Endpoint<RawResponse>(.get("other"), on: .api)) }
        await transport.waitForArrivals(1)
        transport.answer("/v1/other", with: .status(200))
        _ = try await other.value
        #expect(transport.arrivals == ["/v1/other"])
        call.resume()
        call.resume()  // once only
        await transport.waitForArrivals(2)
        transport.answer("/v1/report", with: .status(200))
        await call.wait()
        #expect(transport.arrivals == ["/v1/other", "/v1/report"])
        #expect(completions.results.withLock { $0.count } == 1)
        withExtendedLifetime(client) {}
    }

    @Test func cancelledBeforeItStartedSendsNothingAndCompletesOnce() async throws {
        let transport = HeldTransport()
        let client = APIClient(transport: transport)
        let completions = Completions()
        let call = client.prepare(Self.endpoint, completion: completions.record)
        call.cancel()
        call.resume()  // too late
        await call.wait()
        #expect(completions.errors.map(\.code) == [.cancelled])
        #expect(completions.errors.first?.message.contains("before it started") == true)
        #expect(transport.arrivals.isEmpty)
        #expect(call.isCancelled)
        withExtendedLifetime(client) {}
    }

    @Test func cancelledWhileRunningEndsTheTransfer() async throws {
        let transport = HeldTransport()
        let client = APIClient(transport: transport)
        let completions = Completions()
        let call = client.prepare(Self.endpoint, completion: completions.record)
        call.resume()
        await transport.waitForArrivals(1)
        call.cancel()
        await call.wait()
        #expect(completions.errors.map(\.code) == [.cancelled])
        #expect(transport.cancelled == ["/v1/report"])
        withExtendedLifetime(client) {}
    }

    @Test func aClientReleasedBeforeResumeEndsTheCall() async throws {
        let transport = HeldTransport()
        let completions = Completions()
        var client: APIClient? = APIClient(transport: transport)
        let call = client?.prepare(Self.endpoint, completion: completions.record)
        client = nil
        call?.resume()
        await call?.wait()
        #expect(completions.errors.first?.message.contains("the client was released") == true)
        #expect(transport.arrivals.isEmpty)
    }

    @Test func aPreparedCallDroppedUnresumedIsCancelled() async throws {
        let transport = HeldTransport()
        let client = APIClient(transport: transport)
        let completions = Completions()
        do { _ = client.prepare(Self.endpoint, completion: completions.record) }
        try await waitUntil { !completions.errors.isEmpty }
        #expect(completions.errors.map(\.code) == [.cancelled])
        withExtendedLifetime(client) {}
    }
}
