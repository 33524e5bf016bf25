public import CourierCore

/// How a ``WebSocket`` connects again when its connection is lost, like the
/// event stream's reconnects: off unless ``WebSocketOptions/reconnection``
/// is set.
///
/// A connection is lost when it drops without a close (1006), a ping goes
/// unanswered, or the server closes with a code that says to come back:
/// 1001 (going away), 1011 (internal error), 1012 (service restart), 1013
/// (try again later) or 1014 (bad gateway). A close the app asked for, a
/// normal close (1000), a limit or protocol error, and the app's own codes
/// end the connection for good. Each new connection's handshake is a call
/// through the pipeline again (a token refreshed meanwhile is the one sent);
/// ``resume`` then runs before its messages are read, so the app can say
/// where it left off. Messages continue in the same ``WebSocket/messages``
/// sequence, and a ``WebSocket/send(_:)`` made while the connection is
/// being restored waits for it.
public struct WebSocketReconnection: Sendable {
    /// Whether and when to try again: ``/CourierCore/RetryPolicy/maxAttempts``
    /// counts connections in a row without a message between them (the lost
    /// one first), its backoff and deadline apply, and a handshake the
    /// server refuses with a status the policy does not retry (a 401 that no
    /// refresh cured, a 404) ends the reconnecting at once.
    public var policy: RetryPolicy
    /// Runs on each new connection before its messages are read: send what
    /// lets the server resume (the app's own cursor, a subscription). An
    /// error it throws counts as a failed attempt.
    public var resume: @Sendable (WebSocket) async throws -> Void

    /// Reconnects as `policy` allows, then runs `resume`.
    public init(
        policy: RetryPolicy = .standard,
        resume: @escaping @Sendable (WebSocket) async throws -> Void = { _ in }
    ) {
        self.policy = policy
        self.resume = resume
    }

    /// The close codes that ask the client to come back.
    static let comeBackCodes: Set<UInt16> = [1001, 1011, 1012, 1013, 1014]

    /// Whether a connection that ended this way is worth another.
    static func isLost(_ end: Result<WebSocketClose?, CourierError>) -> Bool {
        switch end {
        case .success(let close):
            return close.map { comeBackCodes.contains($0.code) } ?? false
        case .failure(let error):
            guard let failure = error.underlying as? WebSocketFailure else { return false }
            switch failure.kind {
            case .closedAbnormally, .pongTimeout: return true
            case .closedByPeer: return failure.close.map { comeBackCodes.contains($0.code) } ?? false
            default: return false
            }
        }
    }
}
