@_spi(Locking) import CourierCore
import HTTPTypes

/// The refresh and the calls that wait for it.
extension Authenticator {
    // MARK: - Refreshing

    /// Runs the provider's refresh through the client of the call `context`
    /// describes, in a task of its own: no caller's cancellation reaches it,
    /// and calls it makes pass the authenticator. The client's monitors hear
    /// of it as an event of that call.
    func startRefresh(from signed: Signed, for context: CallContext) {
        let client = context.client
        Self.emit(.credentialRefreshStarted, context)
        let identity = ObjectIdentifier(self)
        let marked = AuthenticationRefresh.inProgress.union([identity])
        Task { [self] in
            let result: Result<Credential, any Error>
            if let client, signed.credential != nil || fetchesInitialCredential {
                result = await AuthenticationRefresh.$inProgress.withValue(marked) {
                    await refreshWithTimeout(signed.credential, through: client)
                }
            } else {
                result = .failure(NoRefreshPossible(credential: signed.credential != nil))
            }
            Self.emit(.credentialRefreshFinished(succeeded: (try? result.get()) != nil), context)
            finishRefresh(result, round: signed.round)
        }
    }

    /// Tells the client's monitors and plugins of a refresh, as an event of the call that began it.
    static func emit(_ kind: CallEvent.Kind, _ context: CallContext) {
        CallEvent.deliver(kind, context: context, to: context.monitors)
    }

    /// Refreshes `credential`, or fetches the first one when it is `nil`
    /// (an ``InitialCredentialProvider``), within the refresh timeout.
    func refreshWithTimeout(_ credential: Credential?, through client: APIClient) async -> Result<
        Credential, any Error
    > {
        let provider = self.provider
        let clock = self.clock
        let timeout = refreshTimeout
        return await withTaskGroup(of: Result<Credential, any Error>?.self) { group in
            group.addTask {
                do {
                    if let credential {
                        return .success(try await provider.refresh(credential, through: client))
                    }
                    return .success(try await Self.initialCredential(from: provider, through: client))
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                do { try await clock.sleepAsTimeout(for: timeout) } catch { return nil }
                return .failure(RefreshTimedOut(timeout: timeout))
            }
            defer { group.cancelAll() }
            while let result = await group.next() {
                if let result { return result }
            }
            return .failure(RefreshTimedOut(timeout: timeout))
        }
    }

    /// Whether the provider can get a credential from nothing.
    var fetchesInitialCredential: Bool { provider is any InitialCredentialProvider }

    /// The provider's first credential (``InitialCredentialProvider``).
    static func initialCredential(from provider: Provider, through client: APIClient) async throws
        -> Credential
    {
        guard let fetching = provider as? any InitialCredentialProvider else {
            throw NoRefreshPossible(credential: false)
        }
        return try await fetch(fetching, through: client)
    }

    private static func fetch<Fetching: InitialCredentialProvider>(
        _ provider: Fetching, through client: APIClient
    ) async throws -> Credential {
        let credential = try await provider.initialCredential(through: client)
        // Fetching is Provider itself (the cast above), so its Credential is ours.
        guard let ours = credential as? Credential else { throw NoRefreshPossible(credential: false) }
        return ours
    }

    func finishRefresh(_ result: Result<Credential, any Error>, round: Int) {
        switch result {
        case .success(let credential):
            guard let end = inner.withLock({ $0.rules.refreshSucceeded(credential, round: round) }),
                let signed = end.signed
            else { return }
            wake(end, .success(signed))
        case .failure(let error):
            let failure = CourierError(
                .authentication, stage: .authentication,
                message: "refreshing the credential failed: \(error)",
                underlying: error)
            let end = inner.withLock { inner in
                let end = inner.rules.refreshFailed(round: round)
                if end != nil { inner.refreshFailure = failure }
                return end
            }
            if let end { wake(end, .failure(failure)) }
        }
    }

    /// Replaces the credential, e.g. after the user signed in (again): calls
    /// waiting for a refresh go on with it, and later calls use it.
    public func replaceCredential(with credential: Credential) {
        replace(with: credential)
    }

    /// Forgets the credential, e.g. when the user signs out: calls fail with
    /// `CourierError.Code.authentication` until ``replaceCredential(with:)``,
    /// and calls waiting for a refresh end that way too.
    public func removeCredential() {
        replace(with: nil)
    }

    /// A new generation of the credential (`nil`: none); the waiters of a
    /// refresh in flight go on with it.
    func replace(with credential: Credential?) {
        let end = inner.withLock { $0.rules.replace(with: credential) }
        guard let signed = end.signed else { return }
        wake(end, .success(signed))
    }

    /// Ends the waits of a refresh's waiters with `outcome`, in the order they came.
    func wake(
        _ end: Rules.RefreshEnd, _ outcome: Result<Signed, CourierError>
    ) {
        let woken = inner.withLock { inner in end.waiters.compactMap { inner.waits.end($0, with: outcome) } }
        for continuation in woken { continuation.resume(returning: outcome) }
    }

    // MARK: - Waiting

    func wait(_ waiter: Waiter, failure: CourierError?, _ call: CallCancellation?) async
        -> Result<Signed, CourierError>
    {
        let registration = call?.onCancel { [self] in withdraw(waiter, reason: call?.reason) }
        defer { registration?.remove() }
        let missing = Result<Signed, CourierError>.failure(
            CourierError(.authentication, stage: .authentication, message: "the refresh's answer was lost"))
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<Signed, CourierError>, Never>) in
                let ready = inner.withLock { $0.waits.suspend(waiter, continuation, missing: missing) }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            withdraw(waiter, reason: nil)
        }
        // The call that failed authentication carries its response into the error.
        guard case .failure(var error) = result, let failure else { return result }
        error.response = error.response ?? failure.response
        error.request = error.request ?? failure.request
        return .failure(error)
    }

    /// A waiting call was cancelled (by its task, ``/CourierCore/APIClient/cancelAll()``
    /// or a policy, whose `reason` it ends with): it leaves at once; the refresh goes on.
    func withdraw(_ waiter: Waiter, reason: CourierError?) {
        let cancelled =
            reason
            ?? CourierError(
                .cancelled, stage: .authentication,
                message: "the call was cancelled while waiting for a credential refresh")
        let continuation = inner.withLock { inner in
            inner.rules.withdraw(waiter) ? inner.waits.end(waiter, with: .failure(cancelled)) : nil
        }
        continuation?.resume(returning: .failure(cancelled))
    }
}
