public import CourierCore

/// One page of a walk: the model, the reply it came in, and where it started.
public struct Page<Model: Sendable>: Sendable {
    /// The decoded page.
    public let model: Model
    /// The reply: response, attempts.
    public let reply: Reply<Model>
    /// Where this page started.
    public let position: PagePosition
    /// Which page of the walk this is, from 0.
    public let index: Int
}

/// The pages of a paged endpoint, fetched one at a time as the loop asks
/// for them: what ``/CourierCore/APIClient/pages(_:by:)`` returns.
///
/// A value: every `for try await` over it starts a walk of its own from
/// the first page, and nothing is shared between walks. A walk ends after
/// the last page (the ``Pagination`` says which) or at an empty page, which
/// is not yielded; an error ends it by throwing (each page is one call, with
/// the client's retries); cancelling the looping task ends it with
/// ``/CourierCore/CourierError/Code/cancelled``.
package struct PageSequence<Model: Sendable>: AsyncSequence, Sendable {
    /// A page.
    package typealias Element = Page<Model>
    /// Every error is a ``/CourierCore/CourierError``.
    package typealias Failure = CourierError

    let client: APIClient
    let endpoint: Endpoint<Model>
    let pagination: Pagination<Model>

    /// Starts a walk from the first page.
    package func makeAsyncIterator() -> Iterator {
        Iterator(client: client, endpoint: endpoint, pagination: pagination, position: pagination.first)
    }

    /// A walk: the position of the next page, or `nil` once it ended.
    package struct Iterator: AsyncIteratorProtocol {
        let client: APIClient
        let endpoint: Endpoint<Model>
        let pagination: Pagination<Model>
        var position: PagePosition?
        var index = 0

        /// Fetches the next page; `nil` after the last.
        package mutating func next() async throws(CourierError) -> Page<Model>? {
            guard let current = position else { return nil }
            position = nil  // an error or cancellation ends the walk
            if Task.isCancelled {
                throw CourierError(
                    .cancelled, stage: .build, message: "the walk over \(endpoint.spec.route) was cancelled")
            }
            let reply = try await client.response(pagination.apply(endpoint, current))
            if let count = pagination.count, count(reply.model) == 0 { return nil }
            do {
                position = try pagination.next(reply, current)
            } catch {
                throw CourierError(
                    .decoding, stage: .decoding,
                    message: "the position of the page after \(current) could not be read: \(error)",
                    response: reply.response, attempt: reply.attempts, underlying: error)
            }
            defer { index += 1 }
            return Page(model: reply.model, reply: reply, position: current, index: index)
        }
    }
}

extension APIClient {
    /// The pages of `endpoint`, walked with `pagination`:
    ///
    /// ```swift
    /// for try await page in client.pages(.orders, by: .cursors(next: { $0.model.next })) {
    ///     orders += page.model.items
    /// }
    /// ```
    ///
    /// Pages are fetched one at a time as the loop asks for them. The
    /// sequence is a value: every `for try await` over it starts a walk of
    /// its own from the first page, and nothing is shared between walks. A
    /// walk ends after the last page (the ``Pagination`` says which) or at an
    /// empty page, which is not yielded; an error ends it by throwing (each
    /// page is one call, with the client's retries); cancelling the looping
    /// task ends it with ``/CourierCore/CourierError/Code/cancelled``.
    /// - Parameters:
    ///   - endpoint: The first page's endpoint; ``Pagination`` moves it on.
    ///   - pagination: Where the next page is, and when the walk ends.
    /// - Returns: The pages, as an asynchronous sequence that throws ``/CourierCore/CourierError``.
    public func pages<Model>(
        _ endpoint: Endpoint<Model>, by pagination: Pagination<Model>
    ) -> some AsyncSequence<Page<Model>, CourierError> & Sendable {
        PageSequence(client: self, endpoint: endpoint, pagination: pagination)
    }
}
