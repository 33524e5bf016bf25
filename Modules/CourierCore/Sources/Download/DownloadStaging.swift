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

/// Where a download waits until its response is validated.
///
/// The transport writes the body to a staging file beside the destination (a
/// hidden name of its own), and the file is moved to the destination only
/// once the response passed validation. A download answered with a 404 page,
/// a 503 that is retried, or a response an interceptor throws on never
/// touches the destination: the staging file is removed, and a failed
/// response's body (its first ``failedBodyLimit`` bytes at most) goes into
/// the error instead, in memory.
struct DownloadStaging {
    /// The most bytes of a failed download's body kept in the error.
    static let failedBodyLimit = 1 << 20

    /// Where the caller wants the file.
    let destination: DownloadTarget
    /// Where the transport writes it.
    let staged: DownloadTarget

    /// The staging of `destination` in `staged`, made before.
    init(destination: DownloadTarget, staged: DownloadTarget) {
        self.destination = destination
        self.staged = staged
    }

    /// Checks the destination before anything is sent: a file in the way
    /// that may not be replaced fails the attempt at once.
    /// - Throws: ``TransportError/Code/fileSystem``.
    init(_ destination: DownloadTarget) throws(TransportError) {
        try PartialDownload.checkReplaceable(destination)
        self.destination = destination
        let name = ".\(destination.url.lastPathComponent).courier-\(UUID().uuidString.prefix(12)).staged"
        staged = DownloadTarget(
            destination.url.deletingLastPathComponent().appendingPathComponent(name),
            options: destination.options.intersection([.createIntermediateDirectories, .resumable]))
    }

    /// Whether `response` carries the staged file.
    func holds(_ response: RawResponse) -> Bool {
        response.body == .file(staged.url)
    }

    /// Moves the staged file to the destination; the response then points
    /// there, still validated.
    /// - Throws: ``TransportError/Code/fileSystem`` when the move fails (a
    ///   file appeared at a destination that may not be replaced).
    func commit(_ response: inout RawResponse) throws(TransportError) {
        guard holds(response) else { return }
        try PartialDownload.place(staged.url, at: destination)
        let stamp = response.validation
        response.body = .file(destination.url)
        response.validation = stamp
    }

    /// The body of a response that failed, read from the staged file into
    /// memory (at most ``failedBodyLimit`` bytes), so the error can show it.
    func failedBody(of response: RawResponse?) -> ResponseBody? {
        guard let response, holds(response) else { return nil }
        let descriptor = open(staged.url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: Self.failedBodyLimit)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
        }
        bytes.removeSubrange(filled...)
        return .bytes(bytes)
    }

    /// Removes the staged file, and what a resumable transfer left beside
    /// it that ``DownloadResume`` did not take, if they are still there.
    func discard() {
        unlink(staged.url.path)
        if staged.options.contains(.resumable) {
            unlink(staged.partialFileURL.path)
            unlink(staged.partialHeadURL.path)
        }
    }
}
