public import HTTPTypes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A download being written, for transports: the bytes go to a private
/// temporary file beside the destination (mode 0600, a hidden name in the same
/// folder), which is moved into place only when the transfer completed and
/// its length checks out. Every other ending — a reset, a limit, a timeout,
/// cancellation, a failed move — removes it: a failed download leaves
/// nothing behind, and a retry starts clean.
///
/// Not thread-safe: one transfer writes it, from one thread at a time.
///
/// ```swift
/// let download = try PartialDownload(destination)
/// try download.write(chunk)                          // as bytes arrive
/// let url = try download.commit(expectedLength: 42)  // or download.discard()
/// ```
@_spi(Transport) public final class PartialDownload {
    /// Where the file goes when complete.
    public let destination: DownloadTarget
    /// Where it is written until then.
    public let temporaryURL: URL
    /// Bytes written so far.
    public private(set) var written: Int64 = 0
    /// The response head, which a transport sets before the first write: a
    /// ``DownloadTarget/Options/resumable`` download that fails keeps
    /// its bytes only when it knows their validators from here.
    public var head: HTTPResponse?
    private var descriptor: Int32
    private var finished = false

    /// Prepares the destination's folder and creates the temporary file.
    /// - Throws: ``TransportError/Code/fileSystem`` when the folder cannot be
    ///   made, a file is at the destination and may not be replaced, or the
    ///   temporary file cannot be created.
    public init(_ destination: DownloadTarget) throws(TransportError) {
        self.destination = destination
        let folder = destination.url.deletingLastPathComponent()
        if destination.options.contains(.createIntermediateDirectories) {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw TransportError(.fileSystem, "cannot create \(folder.path): \(error)")
            }
        }
        try Self.checkReplaceable(destination)
        let name = ".\(destination.url.lastPathComponent).courier-\(UUID().uuidString.prefix(12)).part"
        temporaryURL = folder.appendingPathComponent(name)
        descriptor = open(temporaryURL.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw TransportError(
                .fileSystem, "cannot create a file in \(folder.path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { discard() }

    /// Appends bytes.
    /// - Throws: ``TransportError/Code/fileSystem`` when the disk refuses them.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        guard var base = bytes.baseAddress, !finished else { return }
        var left = bytes.count
        while left > 0 {
            let count = systemWrite(descriptor, base, left)
            if count < 0 {
                if errno == EINTR { continue }
                throw TransportError(
                    .fileSystem, "writing the download failed: \(String(cString: strerror(errno)))")
            }
            left -= count
            base += count
            written += Int64(count)
        }
    }

    /// Appends bytes.
    /// - Throws: ``TransportError/Code/fileSystem`` when the disk refuses them.
    public func write(_ bytes: [UInt8]) throws(TransportError) {
        var failure: TransportError?
        bytes.withUnsafeBytes { buffer in
            do throws(TransportError) { try write(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Moves the complete file into place and returns its URL.
    /// - Parameter expectedLength: The length the response announced for
    ///   these bytes (`Content-Length` without a content coding); a different
    ///   length fails instead of leaving a short file behind.
    /// - Throws: ``TransportError/Code/connectionReset`` for a length that does
    ///   not match, ``TransportError/Code/fileSystem`` when the move fails;
    ///   either way the temporary file is removed.
    /// - Returns: The file's final place.
    public func commit(expectedLength: Int64?) throws(TransportError) -> URL {
        guard !finished else { throw TransportError(.fileSystem, "the download was already finished") }
        close(descriptor)
        descriptor = -1
        do throws(TransportError) {
            if let expectedLength, expectedLength != written {
                throw TransportError(
                    .connectionReset, "the download has \(written) of the \(expectedLength) bytes announced")
            }
            try move()
        } catch {
            discard()
            throw error
        }
        finished = true
        return destination.url
    }

    /// Removes the temporary file; safe to call any number of times, and after
    /// ``commit(expectedLength:)``. Under ``DownloadTarget/Options/resumable``,
    /// bytes of a response that can be resumed (see ``head``) are kept at
    /// ``DownloadTarget/partialFileURL`` instead, with the head beside them.
    public func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        guard !finished else { return }
        finished = true
        if destination.options.contains(.resumable), written > 0, let head, let kept = KeptDownloadHead(head),
            kept.write(to: destination.partialHeadURL)
        {
            if rename(temporaryURL.path, destination.partialFileURL.path) == 0 { return }
            unlink(destination.partialHeadURL.path)
        }
        unlink(temporaryURL.path)
    }

    private func move() throws(TransportError) {
        try Self.place(temporaryURL, at: destination)
    }

    /// Moves a complete file into place at `destination`. `rename` replaces a
    /// file at the destination atomically; `link`, used when replacing is not
    /// allowed, fails instead of replacing, so a file that appeared meanwhile
    /// is never overwritten.
    static func place(_ file: URL, at destination: DownloadTarget) throws(TransportError) {
        let from = file.path
        let to = destination.url.path
        if destination.options.contains(.removePreviousFile) {
            guard rename(from, to) == 0 else {
                throw TransportError(
                    .fileSystem, "cannot move the download to \(to): \(String(cString: strerror(errno)))")
            }
            return
        }
        guard link(from, to) == 0 else {
            let reason =
                errno == EEXIST
                ? "a file is already there and removePreviousFile is not set"
                : String(cString: strerror(errno))
            throw TransportError(.fileSystem, "cannot move the download to \(to): \(reason)")
        }
        unlink(from)
    }

    /// Fails when a file is at the destination and may not be replaced.
    static func checkReplaceable(_ destination: DownloadTarget) throws(TransportError) {
        guard !destination.options.contains(.removePreviousFile),
            FileManager.default.fileExists(atPath: destination.url.path)
        else { return }
        throw TransportError(
            .fileSystem, "\(destination.url.path) exists and removePreviousFile is not set")
    }
}

/// The C library's `write`, which ``PartialDownload/write(_:)`` and ``DownloadResume`` use.
func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
    #else
        Darwin.write(descriptor, bytes, count)
    #endif
}
