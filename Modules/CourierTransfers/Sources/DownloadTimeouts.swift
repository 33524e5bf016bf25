public import CourierCore

/// What bounds one attempt of a download (`APIClient.Configuration.downloadTimeouts`).
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

extension APIClient.Configuration {
    /// What bounds an attempt of a download (an endpoint with a
    /// ``DownloadDestination``): by default only the quiet between bytes,
    /// so a large file over a slow link is not cut off at a total.
    public var downloadTimeouts: DownloadTimeouts {
        get { DownloadTimeouts(idle: downloadIdleTimeout, total: downloadTotalTimeout) }
        set {
            downloadIdleTimeout = newValue.idle
            downloadTotalTimeout = newValue.total
        }
    }

    /// The largest body a download endpoint may write to disk, counted
    /// after decompression: `nil` (no limit) by default. Set one when a
    /// server you do not control may answer with a decompression bomb.
    public var maxDownloadSize: Int64? {
        get { downloadSizeLimit }
        set { downloadSizeLimit = newValue }
    }
}

extension EndpointSpec {
    /// Write the response body to a file instead of memory.
    public var destination: DownloadDestination? {
        get { downloadTarget.map(DownloadDestination.init) }
        set { downloadTarget = newValue?.target }
    }

    /// The largest body a download (``destination``) may write, counted after
    /// decompression; a larger one is refused at its announced length or
    /// stopped at the limit, and leaves no file.
    public var maxDownloadSize: Int64? {
        get { downloadSizeLimit }
        set { downloadSizeLimit = newValue }
    }
}
