import CourierCodable
import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierCache

/// Several variants of one URL (RFC 9111 §4.1), each used only for a
/// request whose `Vary` fields match it, up to the policy's bound.
struct VaryVariantTests {
    /// `X-Region`.
    static let region = HTTPField.Name("X-Region") ?? .userAgent

    /// `<region><n>`, varying on `X-Region`.
    static func origin() -> Origin {
        Origin { head, number in
            .json(
                #"{"id": 7, "name": "\#(head.headerFields[region] ?? "none")-\#(number)"}"#,
                headers: [.cacheControl: "max-age=600", .vary: "X-Region"])
        }
    }

    static func user(_ region: String?, variants: Int) -> Endpoint<User> {
        let endpoint = Endpoint<User>(.get("users/7"), on: .api).cache(.http) { $0.variants = variants }
        return region.map { endpoint.adding(headers: [Self.region: $0]) } ?? endpoint
    }

    /// (Places are chosen by a hash of the values: these four fall into
    /// four of the 32.)
    @Test func everyVariantIsKeptAndAnswersItsOwnRequests() async throws {
        let origin = Self.origin()
        let client = makeClient(origin, cache: ResponseCache())
        let regions: [String?] = ["eu", "us", "ap", nil]
        for region in regions { _ = try await client.send(Self.user(region, variants: 32)) }
        #expect(origin.count == 4)
        for (number, region) in regions.enumerated() {
            let reply = try await client.response(Self.user(region, variants: 32))
            #expect(reply.attempts == 0, "\(region ?? "none")")
            #expect(reply.model.name == "\(region ?? "none")-\(number + 1)")
        }
        #expect(origin.count == 4)
    }

    @Test func withNoPlacesOnlyTheMostRecentVariantIsKept() async throws {
        let origin = Self.origin()
        let client = makeClient(origin, cache: ResponseCache())
        _ = try await client.send(Self.user("eu", variants: 0))
        _ = try await client.send(Self.user("us", variants: 0))
        #expect(try await client.response(Self.user("us", variants: 0)).attempts == 0)
        #expect(try await client.send(Self.user("eu", variants: 0)).name == "eu-3")
    }

    /// More variants than places: some are asked for again, none is ever
    /// answered with another's response.
    @Test func pastTheBoundVariantsReplaceEachOtherButNeverMix() async throws {
        let origin = Self.origin()
        let client = makeClient(origin, cache: ResponseCache())
        let regions = (1...12).map { "r\($0)" }
        for region in regions { _ = try await client.send(Self.user(region, variants: 2)) }
        var answeredFromStorage = 0
        // The most recent first: each miss after it stores its own response.
        for region in regions.reversed() {
            let reply = try await client.response(Self.user(region, variants: 2))
            let answeredFor = reply.model.name.split(separator: "-").first.map(String.init)
            #expect(answeredFor == region, "\(reply.model.name)")
            if reply.attempts == 0 { answeredFromStorage += 1 }
        }
        // The most recent (r12), and perhaps some kept beside it.
        #expect(answeredFromStorage >= 1 && answeredFromStorage < regions.count)
    }
}
