import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The head of an interrupted transfer whose bytes were kept for resuming
/// (``DownloadTarget/Options/resumable``): what is needed to ask for
/// the rest and to check that the rest belongs to the same file.
struct KeptDownloadHead: Codable, Equatable {
    /// 200, or 206 for a transfer that was itself a continuation.
    var status: Int
    var etag: String?
    var lastModified: String?
    /// A 206's `Content-Range`.
    var contentRange: String?

    /// The head of `response` when its bytes can be resumed: a 200 or 206
    /// without a content coding (offsets must count the bytes as sent), with
    /// a strong `ETag` or a `Last-Modified` to ask `If-Range` with.
    init?(_ response: HTTPResponse) {
        let fields = response.headerFields
        guard response.status.code == 200 || response.status.code == 206 else { return nil }
        let coding = fields[.contentEncoding]?.lowercased()
        guard coding == nil || coding == "identity" else { return nil }
        let etag = fields[.eTag].flatMap { $0.hasPrefix("W/") ? nil : $0 }
        let lastModified = fields[.lastModified]
        guard etag != nil || lastModified != nil else { return nil }
        self.status = response.status.code
        self.etag = etag
        self.lastModified = lastModified
        self.contentRange = response.status.code == 206 ? fields[.contentRange] : nil
    }

    /// What `If-Range` carries: the strong `ETag`, else the date.
    var validator: String? { etag ?? lastModified }

    static func read(_ url: URL) -> KeptDownloadHead? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(KeptDownloadHead.self, from: data)
    }

    func write(to url: URL) -> Bool {
        guard let data = try? JSONEncoder().encode(self) else { return false }
        return (try? data.write(to: url, options: .atomic)) != nil
    }
}

/// `Content-Range: bytes first-last/total` (RFC 9110 §14.4), read.
package struct ContentRange: Equatable {
    package var first: Int64
    package var last: Int64
    /// `nil` for `*`.
    package var total: Int64?

    package init?(_ field: String?) {
        guard let field, field.hasPrefix("bytes ") else { return nil }
        let spec = field.dropFirst(6)
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last
        else { return nil }
        self.first = first
        self.last = last
        if halves[1] == "*" {
            self.total = nil
        } else {
            guard let total = Int64(halves[1]), total > last else { return nil }
            self.total = total
        }
    }
}
