@_spi(Transport) import CourierCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Where a download's body is written, and how.
public struct DownloadDestination: Sendable, Hashable {
    /// What the transport may do to put the file in place.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: Int
        /// Creates options from raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Create missing parent directories.
        public static let createIntermediateDirectories = Options(rawValue: 1 << 0)
        /// Replace a file already at the destination (otherwise that is an error).
        public static let removePreviousFile = Options(rawValue: 1 << 1)
        /// Keep an interrupted download and continue it later, from where it
        /// stopped (`Range` with `If-Range`), instead of starting over.
        ///
        /// For a call, the pipeline keeps the bytes and the response's
        /// validators beside the destination; the next attempt (a retry) or
        /// the next call to the same destination asks for the rest, appends
        /// it on a 206, and starts over on a 200 — the server's answer when
        /// the file changed.
        public static let resumable = Options(rawValue: 1 << 2)
    }

    /// The file to write.
    public var url: URL
    /// How to put it in place; both options may be combined.
    public var options: Options

    /// Creates a destination: the body is written to a temporary file beside
    /// `url` and moved there once complete, so `url` never holds half a body.
    /// - Parameters:
    ///   - url: Where the finished download goes.
    ///   - options: Whether to create missing directories (the default),
    ///     replace an existing file, or keep an interrupted download to resume.
    public init(_ url: URL, options: Options = [.createIntermediateDirectories]) {
        self.url = url
        self.options = options
    }

    /// What the pipeline and the transports work with (CourierCore's
    /// `DownloadTarget`): the same file and options.
    var target: DownloadTarget {
        DownloadTarget(url, options: DownloadTarget.Options(rawValue: options.rawValue))
    }

    /// The destination `target` describes.
    init(_ target: DownloadTarget) {
        self.init(target.url, options: Options(rawValue: target.options.rawValue))
    }
}
