@_spi(Locking) @_spi(Transport) import CourierCore
import HTTPTypes

/// A node's failover around each attempt (`AttemptSlot.failover`): the
/// attempt goes to the node's base URLs in the ``Failover``'s order, moving
/// on only while nothing reached a server, each move spending a retry from
/// the client's budget and told to the monitors; the attempt's deadline
/// covers every move.
struct FailoverStep: AttemptStep {
    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        let node = state.spec.node
        let environment = state.context.environment
        let primary = try node.parsedBaseURL(for: environment)
        let head = attempt.request.head
        // An interceptor that sent the request elsewhere chose its server.
        guard head.scheme == primary.scheme, head.authority == primary.authority,
            let path = head.path, Self.path(path, isUnder: primary)
        else { return try await next(&attempt, state) }
        let bases = try node.failover.candidates(primary: primary, environment: environment, node: node.name)
        let given = attempt
        let clock = state.clock
        let started = clock.now
        var failed: (request: HTTPRequest, error: CourierError)?
        for (index, base) in bases.enumerated() {
            var trying = given
            trying.request.head = Self.rebase(head, from: primary, to: base)
            if let (request, error) = failed {
                // The attempt's total covers every move.
                if let total = given.options.timeout {
                    let left = total - (clock.now - started)
                    guard left > .zero else { throw error }
                    trying.options.timeout = left
                }
                if let allowance = state.retryAllowance, await !allowance.withdrawRetry() { throw error }
                state.emit(
                    .failedOver(from: request, to: trying.request.head, failure: error), attempt: given.number
                )
            }
            do throws(CourierError) {
                let response = try await next(&trying, state)
                attempt = trying
                return response
            } catch {
                guard index + 1 < bases.count, Failover.movesOn(after: error), !Task.isCancelled else {
                    attempt = trying
                    throw error
                }
                failed = (trying.request.head, error)
            }
        }
        // Not reached: the last candidate returns or throws.
        throw failed?.error ?? CourierError(.invalidRequest, stage: .build, message: "no base URL to send to")
    }

    /// Whether `path` (with its query) begins with `base`'s path.
    static func path(_ path: String, isUnder base: BaseURL) -> Bool {
        guard path.hasPrefix(base.path) else { return false }
        let rest = path.dropFirst(base.path.count)
        return rest.isEmpty || rest.first == "/" || rest.first == "?"
    }

    /// `head` sent to `base` instead of `primary`: scheme and authority
    /// replaced, the base path and the base query swapped for the other's.
    static func rebase(_ head: HTTPRequest, from primary: BaseURL, to base: BaseURL) -> HTTPRequest {
        guard base != primary, let path = head.path else { return head }
        var rebased = head
        rebased.scheme = base.scheme
        rebased.authority = base.authority
        var rest = Substring(path.dropFirst(primary.path.count))
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        // The primary's own query comes first in every request (RequestBuilder).
        if var own = query, let primaryQuery = primary.query, own.hasPrefix(primaryQuery) {
            own = own.dropFirst(primaryQuery.count)
            if own.first == "&" { own = own.dropFirst() }
            query = own
        }
        let parts: [String] = [base.query, query.map(String.init)].compactMap { $0 }.filter { !$0.isEmpty }
        let joined = parts.joined(separator: "&")
        var newPath = base.path + rest
        if newPath.isEmpty { newPath = "/" }
        rebased.path = joined.isEmpty ? newPath : newPath + "?" + joined
        return rebased
    }
}
