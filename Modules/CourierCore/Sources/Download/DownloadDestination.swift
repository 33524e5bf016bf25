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
        /// the file changed. For a transport, it means: when the transfer
        /// fails after some bytes of a 200 or 206 without a content coding,
        /// leave them at ``DownloadDestination/partialFileURL`` with the head
        /// (``PartialDownload/head``) instead of removing them.
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

    /// Where a transport leaves an interrupted transfer's bytes under
    /// ``Options/resumable``: the destination's path with `.partial` added.
    @_spi(Transport) public var partialFileURL: URL { URL(fileURLWithPath: url.path + ".partial") }

    /// Where the head of that transfer is kept beside them (JSON).
    var partialHeadURL: URL { URL(fileURLWithPath: url.path + ".partial-head") }
}

extension DownloadDestination {
    /// Makes the destination ready for a new file: creates missing parent
    /// directories when ``Options/createIntermediateDirectories`` is set, and
    /// removes a file already there when ``Options/removePreviousFile`` is set.
    /// - Throws: ``TransportError`` with code ``TransportError/Code/fileSystem``
    ///   when a file exists and may not be replaced, or the file system refuses.
    @_spi(Transport) public func prepare() throws(TransportError) {
        let files = FileManager.default
        do {
            if options.contains(.createIntermediateDirectories) {
                try files.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            if files.fileExists(atPath: url.path) {
                guard options.contains(.removePreviousFile) else {
                    throw TransportError(.fileSystem, "\(url.path) exists and removePreviousFile is not set")
                }
                try files.removeItem(at: url)
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(.fileSystem, "cannot prepare \(url.path): \(error)")
        }
    }
}
