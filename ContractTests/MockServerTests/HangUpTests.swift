import CourierMockServer
import Foundation
import Testing

/// A client that closes its side of a connection (FIN) is answered what it
/// is owed and then hung up on. Before, the server kept such connections open
/// for good — one descriptor per connect-and-close, found by scripts/soak —
/// because it allows half-closed connections (for its half-close faults) and
/// nothing closed one whose client had gone.
struct HangUpTests {
    @Test func anIdleClientThatHangsUpIsHungUpOn() async throws {
        try await withServer { server async throws in
            let seen = try await RawClient.exchange(port: server.port, [], halfClose: true)
            #expect(seen.ending == .eof)
            #expect(seen.bytes.isEmpty)
        }
    }

    @Test func aRequestFollowedByAHangUpIsStillAnswered() async throws {
        try await withServer { server async throws in
            let seen = try await RawClient.exchange(
                port: server.port, RawClient.request("GET", "/anything", close: false), halfClose: true)
            #expect(seen.ending == .eof)
            #expect(seen.response?.status == 200)
            #expect(seen.response?.complete == true)
        }
    }

    @Test func twoPipelinedRequestsAndAHangUpGetTwoAnswers() async throws {
        try await withServer { server async throws in
            let request = RawClient.request("GET", "/anything", close: false)
            let seen = try await RawClient.exchange(port: server.port, request + request, halfClose: true)
            #expect(seen.ending == .eof)
            #expect(seen.text.components(separatedBy: "HTTP/1.1 200").count == 3)
        }
    }

    @Test func aStalledRequestWhoseClientHangsUpIsClosed() async throws {
        let json = #"{"id": "s", "request": {"urlPath": "/s"}, "response": {"fault": "stall"}}"#
        try await withServer(json) { server async throws in
            let seen = try await RawClient.exchange(
                port: server.port, RawClient.request("GET", "/s", close: false), halfClose: true)
            #expect(seen.ending == .eof)
            #expect(seen.bytes.isEmpty)
        }
    }
}
