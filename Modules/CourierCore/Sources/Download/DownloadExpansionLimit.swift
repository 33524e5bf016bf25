/// How far a content-coded download may expand: the bound that stops a
/// decompression bomb on its way to disk.
///
/// A download has no in-memory limit to stop a bomb (a body in memory has
/// ``TransportOptions/maxBodySize``), and a size limit that fits every file
/// an app downloads is rarely one an app can name. What no honest coded
/// body does is expand without end: gzip's and deflate's longest run gives
/// about 1,030 decoded bytes per coded one, and real data — text, JSON,
/// logs — 3 to 50. So a download may write ``allowance`` bytes whatever its
/// coded size, and past that at most ``ratio`` decoded bytes per coded byte
/// received; beyond, the transfer fails with
/// ``TransportError/Code/bodyTooLarge`` and the partial file is removed.
/// Counted where Courier undoes the coding (``TransportOptions`` hands it to
/// the transport); a transport whose own library decodes counts against the
/// coded length the response announces.
package struct DownloadExpansionLimit: Sendable, Hashable {
    /// The most decoded bytes per coded byte.
    package var ratio: Int

    /// Decoded bytes a download may write whatever its coded size (1 MiB):
    /// a small body of zeros expands far without being a bomb.
    package static let allowance: Int64 = 1 << 20

    /// Creates the limit.
    package init(ratio: Int) {
        self.ratio = max(1, ratio)
    }

    /// The error for a download that has written `decoded` bytes from
    /// `coded` coded ones; `nil` while it is within the limit.
    package func failure(decoded: Int64, coded: Int64) -> TransportError? {
        guard decoded > Self.allowance else { return nil }
        let (bound, overflow) = max(coded, 0).multipliedReportingOverflow(by: Int64(ratio))
        guard !overflow, decoded > bound else { return nil }
        return TransportError(
            .bodyTooLarge,
            "the download expands to more than \(ratio) times its coded size (\(decoded) bytes from "
                + "\(coded)): stopped as a decompression bomb; raise maxDownloadExpansion for data "
                + "that compresses this well")
    }
}

extension TransportOptions {
    /// The expansion limit this exchange's coded body is held to: for a
    /// download (``destination`` set) with ``maxDownloadExpansion``; `nil`
    /// otherwise.
    package var downloadExpansionLimit: DownloadExpansionLimit? {
        guard destination != nil, let ratio = maxDownloadExpansion else { return nil }
        return DownloadExpansionLimit(ratio: ratio)
    }
}
