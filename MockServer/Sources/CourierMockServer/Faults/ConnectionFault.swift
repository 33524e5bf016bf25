/// Faults applied when a connection is accepted, before any request is read.
public enum ConnectionFault: String, Sendable, CaseIterable {
    /// Accept, then never read or write.
    case stallAfterAccept
    /// Accept, then close with RST at once.
    case resetAfterAccept
}
