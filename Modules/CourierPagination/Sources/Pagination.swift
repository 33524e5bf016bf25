public import CourierCore
import HTTPTypes

/// Where a page starts: what a ``Pagination`` puts on the request. An
/// open set (a struct): compare with `==`, or read the one you used.
public struct PagePosition: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case page(Int)
        case offset(Int)
        case cursor(String?)
        case query(Parameters)
    }

    let kind: Kind

    /// A page number (page/size paging).
    public static func page(_ number: Int) -> PagePosition { PagePosition(kind: .page(number)) }
    /// An item offset (offset/limit paging).
    public static func offset(_ offset: Int) -> PagePosition { PagePosition(kind: .offset(offset)) }
    /// An opaque cursor the server handed out; `nil` for the first page.
    public static func cursor(_ cursor: String?) -> PagePosition { PagePosition(kind: .cursor(cursor)) }
    /// Query parameters taken from a `Link: <…>; rel="next"` URL; empty for the first page.
    public static func query(_ parameters: Parameters) -> PagePosition {
        PagePosition(kind: .query(parameters))
    }

    /// The page number, for a page position.
    public var page: Int? { if case .page(let number) = kind { number } else { nil } }
    /// The item offset, for an offset position.
    public var offset: Int? { if case .offset(let offset) = kind { offset } else { nil } }
    /// The cursor, for a cursor position past the first page.
    public var cursor: String? { if case .cursor(let cursor) = kind { cursor } else { nil } }
    /// The query parameters, for a `Link` position.
    public var query: Parameters? { if case .query(let parameters) = kind { parameters } else { nil } }

    /// `page 2`, `offset 40`, `cursor abc`, `query page=2`.
    public var description: String {
        switch kind {
        case .page(let number): "page \(number)"
        case .offset(let offset): "offset \(offset)"
        case .cursor(let cursor): "cursor \(cursor ?? "(first)")"
        case .query(let parameters):
            "query \(parameters.map { "\($0.key)=\($0.value)" }.joined(separator: "&"))"
        }
    }
}

/// How to walk a paged endpoint: where the first page starts, how a
/// position goes onto the request, and where the next page starts (or that
/// there is none), read from the reply. A value: walking never changes it,
/// so one pagination serves any number of walks at once.
///
/// ```swift
/// // Page and size: ?page=1&size=20, ?page=2&size=20, … until a short page.
/// let users = client.pages(.users, by: .pageNumbers(size: 20, count: { $0.items.count }))
/// for try await page in users { show(page.model.items) }
/// ```
///
/// Every strategy stops after a page with no items, and the walk never
/// yields an empty page.
public struct Pagination<Model: Sendable>: Sendable {
    /// The position of the first page.
    public let first: PagePosition
    /// Puts a position on the endpoint.
    public let apply: @Sendable (Endpoint<Model>, PagePosition) -> Endpoint<Model>
    /// The position of the page after `reply`'s, or `nil` when it was the last.
    public let next: @Sendable (Reply<Model>, PagePosition) throws -> PagePosition?
    /// How many items a page holds (`nil`: not known; then only `next` stops the walk).
    public let count: (@Sendable (Model) -> Int)?

    /// A pagination from its parts.
    /// - Parameters:
    ///   - first: The position of the first page.
    ///   - apply: Puts a position on the endpoint.
    ///   - next: The position after a page, `nil` after the last one; a
    ///     throw ends the walk with ``/CourierCore/CourierError/Code/decoding``.
    ///   - count: Items on a page, so that an empty page ends the walk.
    public init(
        first: PagePosition,
        apply: @escaping @Sendable (Endpoint<Model>, PagePosition) -> Endpoint<Model>,
        next: @escaping @Sendable (Reply<Model>, PagePosition) throws -> PagePosition?,
        count: (@Sendable (Model) -> Int)? = nil
    ) {
        self.first = first
        self.apply = apply
        self.next = next
        self.count = count
    }

    /// Page/size paging: the page
    /// number and size go into the parameters (the query, or a form or
    /// JSON body's parameters); a page with fewer than `size` items is the last.
    /// - Parameters:
    ///   - pageKey: The page number's name: `page`.
    ///   - sizeKey: The page size's name: `size`.
    ///   - size: Items per page.
    ///   - firstPage: The first page's number: 1.
    ///   - count: Items on a page.
    ///   - isLast: Overrides "fewer than `size` items", e.g. with the server's `totalPages`.
    /// - Returns: The pagination.
    public static func pageNumbers(
        pageKey: String = "page", sizeKey: String = "size", size: Int, firstPage: Int = 1,
        count: @escaping @Sendable (Model) -> Int, isLast: (@Sendable (Reply<Model>) -> Bool)? = nil
    ) -> Pagination {
        Pagination(
            first: .page(firstPage),
            apply: { endpoint, position in
                guard let number = position.page else { return endpoint }
                return endpoint.adding(parameters: [pageKey: .int(number), sizeKey: .int(size)])
            },
            next: { reply, position in
                guard let number = position.page else { return nil }
                let last = isLast?(reply) ?? (count(reply.model) < size)
                return last ? nil : .page(number + 1)
            }, count: count)
    }

    /// Offset/limit paging: the offset and limit go into the parameters; the
    /// next offset is this one plus the items received; a page with fewer
    /// than `limit` items is the last.
    public static func offsets(
        offsetKey: String = "offset", limitKey: String = "limit", limit: Int, firstOffset: Int = 0,
        count: @escaping @Sendable (Model) -> Int, isLast: (@Sendable (Reply<Model>) -> Bool)? = nil
    ) -> Pagination {
        Pagination(
            first: .offset(firstOffset),
            apply: { endpoint, position in
                guard let offset = position.offset else { return endpoint }
                return endpoint.adding(parameters: [offsetKey: .int(offset), limitKey: .int(limit)])
            },
            next: { reply, position in
                guard let offset = position.offset else { return nil }
                let received = count(reply.model)
                let last = isLast?(reply) ?? (received < limit)
                return last ? nil : .offset(offset + received)
            }, count: count)
    }

    /// Cursor paging: the first request carries no cursor; each next one
    /// carries the cursor the last reply named (`cursor` read from the
    /// model, e.g. `$0.model.nextCursor`); none (or an empty one) ends the walk.
    public static func cursors(
        key: String = "cursor", next cursor: @escaping @Sendable (Reply<Model>) -> String?,
        count: (@Sendable (Model) -> Int)? = nil
    ) -> Pagination {
        Pagination(
            first: .cursor(nil),
            apply: { endpoint, position in
                guard let value = position.cursor else { return endpoint }
                return endpoint.adding(parameters: [key: .string(value)])
            },
            next: { reply, _ in
                guard let value = cursor(reply), !value.isEmpty else { return nil }
                return .cursor(value)
            }, count: count)
    }

    /// RFC 8288 `Link` paging (GitHub's style): the next page is the
    /// `rel="next"` link of the response; its query parameters go on the
    /// endpoint (replacing those of the same name). No such link ends the walk.
    public static func linkHeader(count: (@Sendable (Model) -> Int)? = nil) -> Pagination {
        Pagination(
            first: .query(.empty),
            apply: { endpoint, position in
                guard let parameters = position.query, !parameters.isEmpty else { return endpoint }
                return endpoint.adding(query: parameters)
            },
            next: { reply, _ in
                let links = reply.response?.headerFields[values: LinkHeader.name] ?? []
                guard let target = LinkHeader.target(rel: "next", in: links) else { return nil }
                return .query(LinkHeader.query(of: target))
            }, count: count)
    }
}
