#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Where a response's body ended up: in memory, or in a file for downloads.
public enum ResponseBody: Sendable, Hashable {
    /// The body in memory.
    case bytes([UInt8])
    /// The body was written to this file (a download).
    case file(URL)

    /// The bytes of an in-memory body; `nil` for a file.
    public var bytes: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }

    /// An empty in-memory body.
    public static let empty = ResponseBody.bytes([])
}
