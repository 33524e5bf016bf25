import CourierCore

/// A refresh that could not start: no credential to refresh, or no client
/// to refresh through (a ``/CourierCore/CallContext`` made by hand).
struct NoRefreshPossible: Error, CustomStringConvertible {
    let credential: Bool
    var description: String {
        credential
            ? "there is no client to refresh through (the call's context was made by hand)"
            : "there is no credential to refresh"
    }
}

/// A refresh that did not end within the authenticator's `refreshTimeout`.
public struct RefreshTimedOut: Error, Sendable, CustomStringConvertible {
    /// The timeout.
    public let timeout: Duration
    /// "the refresh did not end within …".
    public var description: String { "the refresh did not end within \(timeout)" }
}
