import HTTPTypes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A resumable download's bytes from earlier attempts or calls, kept beside
/// the destination (``DownloadTarget/Options/resumable``): a hidden
/// data file and a record of the URL and validators they came with.
///
/// Before an attempt it asks for the rest (`Range: bytes=N-` with
/// `If-Range`); after it, a 206 that continues exactly there is appended, a
/// 200 (the file changed, or the server ignores ranges) replaces the kept
/// bytes, and a 416 or a 206 that does not fit starts over at once. When the
/// transfer fails, what it received joins the kept bytes for the next try.
/// One download per destination at a time.
struct DownloadResume {
    /// The record kept beside the bytes.
    private struct Record: Codable {
        /// The URL the bytes are of; another URL's never continue them.
        var url: String
        var head: KeptDownloadHead
    }

    private let data: URL
    private let recordURL: URL
    private let url: String
    /// The record and the size of the kept bytes, when they can be continued.
    private let kept: (record: Record, size: Int64)?

    init(_ destination: DownloadTarget, request: HTTPRequest) {
        let folder = destination.url.deletingLastPathComponent()
        let name = ".\(destination.url.lastPathComponent).courier-resume"
        data = folder.appendingPathComponent(name)
        recordURL = folder.appendingPathComponent(name + ".json")
        url = "\(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "")"
        kept = Self.load(data: data, record: recordURL, url: url)
        if kept == nil { Self.remove(data, recordURL) }
    }

    private static func load(data: URL, record: URL, url: String) -> (Record, Int64)? {
        guard let bytes = try? Data(contentsOf: record),
            let record = try? JSONDecoder().decode(Record.self, from: bytes), record.url == url,
            record.head.validator != nil
        else { return nil }
        var info = stat()
        guard stat(data.path, &info) == 0, info.st_size > 0 else { return nil }
        return (record, Int64(info.st_size))
    }

    /// Bytes already here, which the next exchange need not fetch.
    var resumedBytes: Int64 { kept?.size ?? 0 }

    /// Asks for the rest of the kept bytes, if there are any.
    func ask(_ head: inout HTTPRequest) {
        guard let kept, let validator = kept.record.head.validator else { return }
        head.headerFields[.range] = "bytes=\(kept.size)-"
        head.headerFields[.ifRange] = validator
    }

    /// What became of an exchange that returned a response.
    enum Settled {
        /// Done: the response's file (if any) is the whole download.
        case done
        /// The kept bytes do not fit the answer: they are gone; ask again
        /// for the whole file.
        case restart
    }

    /// Joins a 206 that continues the kept bytes into the staged file; drops
    /// the kept bytes on a 200, a 416 or a 206 that does not fit.
    func settle(_ response: RawResponse, staged: DownloadTarget) -> Settled {
        guard let kept else { return .done }
        switch response.statusCode {
        case 206:
            let range = ContentRange(response.headerFields[.contentRange])
            let etag = response.headerFields[.eTag]
            guard case .file(let file) = response.body, let range, range.first == kept.size,
                kept.record.head.etag == nil || etag == nil || etag == kept.record.head.etag,
                Self.append(file, to: data), rename(data.path, file.path) == 0
            else {
                discard()
                return .restart
            }
            discard()
            return .done
        case 200:
            discard()
            return .done
        case 416:
            discard()
            return .restart
        default:
            return .done  // a 503 or a 404: the kept bytes wait for a later try
        }
    }

    /// After a failed transfer: what the transport kept (at the staged
    /// destination's ``DownloadTarget/partialFileURL``) continues the
    /// kept bytes, or replaces them when it was a whole new 200.
    func keep(from staged: DownloadTarget) {
        let partial = staged.partialFileURL
        defer { Self.remove(partial, staged.partialHeadURL) }
        guard let head = KeptDownloadHead.read(staged.partialHeadURL) else { return }
        if head.status == 206 {
            // A continuation: it belongs after exactly the bytes kept.
            guard let kept, ContentRange(head.contentRange)?.first == kept.size else { return }
            if !Self.append(partial, to: data) { discard() }
            return
        }
        discard()
        guard rename(partial.path, data.path) == 0 else { return }
        guard let encoded = try? JSONEncoder().encode(Record(url: url, head: head)),
            (try? encoded.write(to: recordURL, options: .atomic)) != nil
        else { return discard() }
    }

    /// Removes the kept bytes and their record.
    func discard() { Self.remove(data, recordURL) }

    /// Removes what the failed transfer wrote and every byte kept before:
    /// for a download stopped for its size (over its limit, or a
    /// decompression bomb), which asking again would only repeat.
    func abandon(_ staged: DownloadTarget) {
        Self.remove(staged.partialFileURL, staged.partialHeadURL)
        discard()
    }

    private static func remove(_ urls: URL...) {
        for url in urls { unlink(url.path) }
    }

    /// Appends the file at `source` to the one at `target`, 1 MiB at a time.
    private static func append(_ source: URL, to target: URL) -> Bool {
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return false }
        defer { close(input) }
        let output = open(target.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard output >= 0 else { return false }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return false }
            if count == 0 { return true }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { bytes in
                    bytes.baseAddress.map { systemWrite(output, $0 + offset, count - offset) } ?? -1
                }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
        }
    }
}
