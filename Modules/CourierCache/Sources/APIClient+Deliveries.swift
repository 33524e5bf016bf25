public import CourierCore
public import Dispatch

extension APIClient {
    /// Sends the endpoint and delivers each result as it comes — a stored
    /// one first when the endpoint's read mode allows it, then the
    /// network's — ending after the last (``CacheDelivery/isLast``).
    ///
    /// ```swift
    /// for await delivery in client.deliveries(.products) {
    ///     switch delivery.result {
    ///     case .success(let reply): render(reply.model, stale: delivery.source == .cache)
    ///     case .failure(let error) where delivery.source == .network: show(error)
    ///     case .failure: break  // a stored response that could not be used
    ///     }
    /// }
    /// ```
    ///
    /// The call starts when iteration starts; cancelling the iterating task
    /// cancels the call and ends the sequence. ``/CourierCore/APIClient/send(_:plugins:progress:)`` on the same endpoint returns
    /// the last delivery's model.
    public func deliveries<Response>(_ endpoint: Endpoint<Response>, plugins: [any Plugin] = [])
        -> CacheDeliveries<Response>
    {
        CacheDeliveries(client: self, endpoint: endpoint, plugins: plugins)
    }

    /// ``deliveries(_:plugins:)`` for callers that are not `async`:
    /// `onDelivery` runs once per delivery, in order, the last one with
    /// ``CacheDelivery/isLast`` set — exactly once with it, cancellation
    /// included.
    /// - Parameters:
    ///   - endpoint: The API to call.
    ///   - queue: Where `onDelivery` runs; `nil` runs it on the call's task.
    ///   - plugins: Plugins for this call only, after the client's and the endpoint's.
    ///   - onDelivery: Called with each delivery: the stored response, then
    ///     the network's, the last one marked.
    /// - Returns: A handle that cancels the call.
    ///
    /// ```swift
    /// client.deliveries(.products, queue: .main) { delivery in
    ///     render(delivery.model, stale: delivery.source == .cache)
    /// }
    /// ```
    @discardableResult
    public func deliveries<Response>(
        _ endpoint: Endpoint<Response>, queue: DispatchQueue? = nil, plugins: [any Plugin] = [],
        onDelivery: @escaping @Sendable (CacheDelivery<Response>) -> Void
    ) -> CancellableCall {
        let task = Task {
            await CacheDeliveries.run(endpoint, on: self, plugins: plugins) { delivery in
                if let queue {
                    queue.async { onDelivery(delivery) }
                } else {
                    onDelivery(delivery)
                }
            }
        }
        return CancellableCall(task: task)
    }
}

/// The deliveries of one cached call, as an `AsyncSequence` that never
/// throws: each element carries its own result (``CacheDelivery``).
public struct CacheDeliveries<Response: Sendable>: AsyncSequence, Sendable {
    /// One delivery.
    public typealias Element = CacheDelivery<Response>
    /// Errors are delivered, not thrown.
    public typealias Failure = Never

    let client: APIClient
    let endpoint: Endpoint<Response>
    let plugins: [any Plugin]

    /// Starts the call.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncStream.makeStream(of: CacheDelivery<Response>.self)
        let (client, endpoint, plugins) = (self.client, self.endpoint, self.plugins)
        let task = Task {
            await Self.run(endpoint, on: client, plugins: plugins) { continuation.yield($0) }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return Iterator(base: stream.makeAsyncIterator())
    }

    /// Runs the call, handing `deliver` each delivery in order, the last
    /// one (``CacheDelivery/isLast``) exactly once — cancellation included.
    static func run(
        _ endpoint: Endpoint<Response>, on client: APIClient, plugins: [any Plugin],
        deliver: @escaping @Sendable (CacheDelivery<Response>) -> Void
    ) async {
        let result = await client.run(endpoint, plugins: plugins, role: .everyDelivery) { stored in
            deliver(CacheDelivery(source: .cache, result: stored, isLast: false))
        }
        let source: CacheSource
        switch result {
        case .success(let reply): source = reply.response?.cacheSource ?? .network
        case .failure: source = .network
        }
        deliver(CacheDelivery(source: source, result: result, isLast: true))
    }

    /// Delivers in order; ends after the last.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<CacheDelivery<Response>>.Iterator

        /// The next delivery, or `nil` after the last.
        public mutating func next() async -> CacheDelivery<Response>? {
            await base.next()
        }
    }
}
