/// What bounds one attempt of a download (``APIClient/Configuration/downloadTimeouts``).
///
/// A total deadline is the wrong bound for a transfer whose size and link
/// speed the client does not choose: a 2 GB file over a slow link takes as
/// long as it takes, and a per-attempt total of 60 s (right for an API call)
/// cuts it off, retry after retry. What signals a dead transfer is silence,
/// so a download is bounded by ``idle`` — no byte either way for that long —
/// and by a ``total`` only when one is set.
public struct DownloadTimeouts: Sendable, Hashable {
    /// The longest a download may move no byte in either direction:
    /// 60 s by default. `nil`: no idle limit.
    public var idle: Duration?
    /// The longest one attempt of a download may take in all: `nil` (no
    /// limit) by default. The retry policy's deadline still applies.
    public var total: Duration?

    /// Bounds for a download's attempts.
    public init(idle: Duration? = .seconds(60), total: Duration? = nil) {
        self.idle = idle
        self.total = total
    }
}
