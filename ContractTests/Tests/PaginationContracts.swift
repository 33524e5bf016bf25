import CourierCodable
import CourierCore
import CourierPagination
import Testing

/// `pages.json`: a paginator walks five pages of each kind and stops.
struct PaginationContracts {
    struct ItemsPage: Decodable, Sendable {
        let items: [Int]
        let next: String?
    }

    @Test(arguments: ContractTransport.allCases)
    func fivePagesOfEachKind(kind: ContractTransport) async throws {
        try await contract("flow: a paginator walks 5 pages (page, offset, cursor) and stops", kind) {
            try await ContractServer.with("pages.json") { server in
                let client = makeClient(kind)
                let count: @Sendable (ItemsPage) -> Int = { $0.items.count }
                let walks: [(String, Pagination<ItemsPage>)] = [
                    ("by-page", .pageNumbers(size: 2, count: count)),
                    ("by-offset", .offsets(limit: 2, count: count)),
                    ("by-cursor", .cursors(next: { $0.model.next }, count: count)),
                ]
                for (path, pagination) in walks {
                    var items: [Int] = []
                    var pages = 0
                    let endpoint = Endpoint<ItemsPage>(.get(RoutePath(escaped: path)), on: server.node())
                    for try await page in client.pages(endpoint, by: pagination) {
                        items += page.model.items
                        pages += 1
                    }
                    check(pages == 5 && items == Array(1...9), "\(path): \(pages) pages, items \(items)")
                }
                let journal = try await server.exchanges()
                journal.expectTotal(.exactly(15))
            }
        }
    }
}
