import CourierCodable
import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

@testable import CourierPagination

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Walking paged endpoints: each strategy against a stub catalogue of 9
/// items, what is requested, what is yielded, and how a walk ends.
struct PaginationTests {
    struct ItemsPage: Decodable, Sendable, Equatable {
        let items: [Int]
        var next: String? = nil
    }

    /// Items 1…9, served by page/size, offset/limit or cursor (the cursor is
    /// the next offset); records every request target.
    static func catalogue(total: Int = 9, failAt offset: Int? = nil) -> RecordingTransport {
        RecordingTransport(
            StubTransport { request in
                let query = URLComponents(string: request.head.path ?? "")?.queryItems ?? []
                func value(_ name: String) -> Int? {
                    query.first { $0.name == name }?.value.flatMap { Int($0) }
                }
                let limit = value("size") ?? value("limit") ?? 2
                let start =
                    value("page").map { ($0 - 1) * limit } ?? value("offset") ?? value("cursor") ?? 0
                if start == offset { return .status(500) }
                let items = Array((start + 1)...(start + limit)).filter { $0 <= total }
                let next = start + limit < total ? "\"\(start + limit)\"" : "null"
                return .json(#"{"items":\#(items),"next":\#(next)}"#)
            })
    }

    static func client(_ transport: any Transport) -> APIClient {
        APIClient(transport: transport, decoder: .codable, clock: TestClock())
    }

    static let endpoint = Endpoint<ItemsPage>(.get("items"), on: .api)

    static func walk(_ pages: some AsyncSequence<Page<ItemsPage>, CourierError>) async throws -> [[Int]] {
        var seen: [[Int]] = []
        for try await page in pages { seen.append(page.model.items) }
        return seen
    }

    static func targets(_ transport: RecordingTransport) -> [String] {
        transport.records.map { String(($0.head.path ?? "").dropFirst("/v1/items".count)) }
    }

    @Test func pageNumbersWalkFivePagesAndStopAtTheShortOne() async throws {
        let server = Self.catalogue()
        let pages = Self.client(server).pages(
            Self.endpoint, by: .pageNumbers(size: 2, count: { $0.items.count }))
        #expect(try await Self.walk(pages) == [[1, 2], [3, 4], [5, 6], [7, 8], [9]])
        #expect(Self.targets(server) == (1...5).map { "?page=\($0)&size=2" })
    }

    @Test func aFullLastPageIsFollowedByAnEmptyOneThatIsNotYielded() async throws {
        let server = Self.catalogue(total: 4)
        let pages = Self.client(server).pages(
            Self.endpoint, by: .pageNumbers(size: 2, count: { $0.items.count }))
        #expect(try await Self.walk(pages) == [[1, 2], [3, 4]])
        #expect(Self.targets(server).count == 3)
    }

    @Test func offsetsAdvanceByWhatWasReceived() async throws {
        let server = Self.catalogue()
        let pages = Self.client(server).pages(
            Self.endpoint, by: .offsets(limit: 2, count: { $0.items.count }))
        #expect(try await Self.walk(pages) == [[1, 2], [3, 4], [5, 6], [7, 8], [9]])
        #expect(Self.targets(server) == [0, 2, 4, 6, 8].map { "?offset=\($0)&limit=2" })
    }

    @Test func cursorsComeFromTheBody() async throws {
        let server = Self.catalogue()
        let pages = Self.client(server).pages(Self.endpoint, by: .cursors(next: { $0.model.next }))
        var positions: [PagePosition] = []
        var indexes: [Int] = []
        for try await page in pages {
            positions.append(page.position)
            indexes.append(page.index)
        }
        #expect(positions == [.cursor(nil), .cursor("2"), .cursor("4"), .cursor("6"), .cursor("8")])
        #expect(indexes == [0, 1, 2, 3, 4])
        #expect(Self.targets(server) == ["", "?cursor=2", "?cursor=4", "?cursor=6", "?cursor=8"])
    }

    @Test func linkHeadersLeadToTheNextPage() async throws {
        let server = RecordingTransport(
            StubTransport { request in
                let page =
                    URLComponents(string: request.head.path ?? "")?.queryItems?
                    .first { $0.name == "page" }?.value.flatMap { Int($0) } ?? 1
                var headers: HTTPFields = [:]
                if page < 5 {
                    headers[LinkHeader.name] =
                        #"<https://api.example.com/v1/items?page=\#(page + 1)&per_page=2>; rel="next", <https://api.example.com/v1/items?page=5>; rel="last""#
                }
                return .json(#"{"items":[\#(page)]}"#, headers: headers)
            })
        let pages = Self.client(server).pages(Self.endpoint, by: .linkHeader())
        #expect(try await Self.walk(pages) == [[1], [2], [3], [4], [5]])
        #expect(
            Self.targets(server) == [
                "", "?page=2&per_page=2", "?page=3&per_page=2", "?page=4&per_page=2", "?page=5&per_page=2",
            ])
    }

    @Test func pageParametersGoIntoAJSONBody() async throws {
        let server = Self.catalogue()
        var endpoint = Endpoint<ItemsPage>(.post("items/search"), on: .api)
        endpoint.content = .json(["q": "all"] as Parameters)
        let pages = Self.client(server).pages(endpoint, by: .pageNumbers(size: 5, count: { $0.items.count }))
        _ = try await Self.walk(pages)
        let bodies = server.records.map { $0.bodyText ?? "" }
        #expect(bodies.count == 1)
        #expect(bodies.first?.contains(#""page":1"#) == true)
        #expect(bodies.first?.contains(#""size":5"#) == true)
    }

    @Test func anErrorEndsTheWalkByThrowing() async throws {
        let server = Self.catalogue(failAt: 4)
        let pages = Self.client(server).pages(
            Self.endpoint, by: .pageNumbers(size: 2, count: { $0.items.count }))
        var iterator = pages.makeAsyncIterator()
        #expect(try await iterator.next()?.model.items == [1, 2])
        #expect(try await iterator.next()?.model.items == [3, 4])
        await #expect(throws: CourierError.self) { try await iterator.next() }
        let afterTheError = try await iterator.next()
        #expect(afterTheError == nil)
        #expect(server.records.count == 3)
    }

    @Test func cancellingTheLoopEndsTheWalk() async throws {
        let server = Self.catalogue()
        let client = Self.client(server)
        let gate = TestGate()
        let walk = Task { () -> (Int, CourierError.Code?) in
            var count = 0
            do throws(CourierError) {
                for try await _ in client.pages(
                    Self.endpoint, by: .pageNumbers(size: 2, count: { $0.items.count }))
                {
                    count += 1
                    if count == 2 { await gate.wait() }
                }
                return (count, nil)
            } catch {
                return (count, error.code)
            }
        }
        try await waitUntil { server.records.count >= 2 }
        walk.cancel()
        gate.open()
        let (count, code) = await walk.value
        #expect(count == 2)
        #expect(code == .cancelled)
        #expect(server.records.count == 2)
    }

    @Test func walksOverOneSequenceAreIndependent() async throws {
        let server = Self.catalogue()
        let pages = Self.client(server).pages(
            Self.endpoint, by: .pageNumbers(size: 2, count: { $0.items.count }))
        async let first = Self.walk(pages)
        async let second = Self.walk(pages)
        let (one, two) = try await (first, second)
        #expect(one == two)
        #expect(one.count == 5)
        #expect(server.records.count == 10)
    }

    @Test func linkFieldsAreReadWithQuotesCommasAndSeveralRelations() {
        let fields = [
            #"<https://a/x?q=1,2>; title="a, b"; rel="prev", <https://a/x?page=3>; REL="Next Last""#,
            #"<https://a/y>; rel=next"#,
        ]
        #expect(LinkHeader.target(rel: "next", in: fields) == "https://a/x?page=3")
        #expect(LinkHeader.target(rel: "prev", in: fields) == "https://a/x?q=1,2")
        #expect(LinkHeader.target(rel: "last", in: fields) == "https://a/x?page=3")
        #expect(LinkHeader.target(rel: "first", in: fields) == nil)
        #expect(LinkHeader.target(rel: "next", in: [fields[1]]) == "https://a/y")
        #expect(
            LinkHeader.query(of: "https://a/x?page=2&per_page=50&q=a%20b") == [
                "page": "2", "per_page": "50", "q": "a b",
            ])
        #expect(LinkHeader.links(in: "no link here").isEmpty)
        #expect(LinkHeader.links(in: "<unterminated; rel=next").isEmpty)
    }
}
