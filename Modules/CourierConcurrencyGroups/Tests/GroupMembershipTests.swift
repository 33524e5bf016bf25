import CourierConcurrencyGroups
import CourierCore
import CourierTestSupport
import CourierTesting
import Testing

/// A call's membership follows the endpoint of each pass: a response handler
/// that runs the call again on an endpoint outside the group takes the call
/// out of it, and one back in the group joins it again. Membership is what
/// ``ConcurrencyGroup/cancelAll()`` reaches, so the test asks it, while a
/// ``HeldTransport`` holds each pass's request.
struct GroupMembershipTests {
    @Test func aReplayOutsideTheGroupLeavesItAndOneBackInJoinsAgain() async throws {
        let transport = HeldTransport()
        let group = ConcurrencyGroup("cart")
        let client = APIClient(configuration: .init(transport: transport))
        let back = Endpoint<RawResponse>(.get("back"), on: .api).concurrency(.default, in: group)
        let outside = Endpoint<RawResponse>(.get("outside"), on: .api)
            .onResponse { _, _ in .resend(back, after: .zero) }
        let first = Endpoint<RawResponse>(.get("first"), on: .api).concurrency(.default, in: group)
            .onResponse { _, _ in .resend(outside, after: .zero) }
        let call = Task { () -> CourierError.Code? in
            do throws(CourierError) {
                _ = try await client.send(first)
                return nil
            } catch {
                return error.code
            }
        }
        await transport.waitForArrivals(1)
        transport.answer("/v1/first")
        await transport.waitForArrivals(2)
        // Outside the group: ending the group's calls does not reach it.
        group.cancelAll()
        transport.answer("/v1/outside")
        try await waitUntil { transport.arrivals.count == 3 || !transport.cancelled.isEmpty }
        try #require(transport.cancelled.isEmpty)
        // Back in the group: it does (the answer after it finds nothing held
        // then; had the call stayed out of the group, it would end it).
        group.cancelAll()
        transport.answer("/v1/back")
        #expect(await call.value == .cancelled)
        #expect(transport.cancelled == ["/v1/back"])
        #expect(transport.arrivals == ["/v1/first", "/v1/outside", "/v1/back"])
        #expect(group.runningCalls == 0 && group.queuedCalls == 0)
    }
}
