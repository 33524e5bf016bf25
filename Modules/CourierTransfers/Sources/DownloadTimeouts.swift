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
    /// after decompression: `nil` (no limit) by default. Set one when you
    /// know how large your files are.
    public var maxDownloadSize: Int64? {
        get { downloadSizeLimit }
        set { downloadSizeLimit = newValue }
    }

    /// How far a content-coded download may expand: past its first MiB, at
    /// most this many decoded bytes per coded byte received — 200 by default,
    /// `nil` for no bound. A decompression bomb (a small gzip, `br` or `zstd`
    /// body that decodes to gigabytes) fails with `.bodyTooLarge` and leaves
    /// no file; real data compresses 3 to 50 times. Raise it for data that
    /// compresses further (sparse images, long runs of one byte).
    /// CurlTransport and AsyncHTTPClientTransport count the coded bytes as
    /// they arrive; URLSessionTransport, whose own library decodes, counts
    /// against the coded length the response announces.
    public var maxDownloadExpansion: Int? {
        get { downloadExpansionLimit }
        set { downloadExpansionLimit = newValue }
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
