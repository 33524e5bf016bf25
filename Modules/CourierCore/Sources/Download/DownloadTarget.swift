#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Where a download's body is written, and how, as the pipeline's download
/// steps and the transports see it: CourierTransfers' `DownloadDestination`
/// (an app's, documented there) made into a value of CourierCore's own, so
/// that a transport depends on CourierCore alone. Same file, same option bits.
@_spi(Transport) public struct DownloadTarget: Sendable, Hashable {
    /// The destination's options, by the same bits.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw bits, the destination's.
        public let rawValue: Int
        /// Options from the destination's bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Create missing parent directories.
        public static let createIntermediateDirectories = Options(rawValue: 1 << 0)
        /// Replace a file already at the destination.
        public static let removePreviousFile = Options(rawValue: 1 << 1)
        /// For a transport: when the transfer fails after some bytes of a
        /// 200 or 206 without a content coding, leave them at
        /// ``DownloadTarget/partialFileURL`` with the head
        /// (``PartialDownload/head``) instead of removing them; the pipeline
        /// resumes from them.
        public static let resumable = Options(rawValue: 1 << 2)
    }

    /// The file to write.
    public var url: URL
    /// How to put it in place.
    public var options: Options

    /// A target: `url`, with `options`.
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

extension DownloadTarget {
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
