#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
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
    }

    /// The file to write.
    public var url: URL
    /// How to put it in place; both options may be combined.
    public var options: Options

    /// Creates a destination.
    public init(_ url: URL, options: Options = [.createIntermediateDirectories]) {
        self.url = url
        self.options = options
    }
}
