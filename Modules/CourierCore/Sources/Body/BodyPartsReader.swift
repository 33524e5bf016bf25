import Synchronization

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a replayable body's parts in chunks, opening each file only while it
/// is being read. Reads are synchronous: transports call this on their own
/// threads; the in-memory test doubles call it for small local files.
final class BodyPartsReader: Sendable {
    private struct State {
        var index = 0
        var offset = 0
        /// Bytes at the start still to pass over (a remainder's).
        var skip: Int64 = 0
        var descriptor: Int32 = -1
        var fileOpened = false
        var remaining: Int64 = 0
    }

    private let parts: [RequestBody.Part]
    private let chunkSize: Int
    private let state = Locked(State())

    init(parts: [RequestBody.Part], chunkSize: Int, skip: Int64 = 0) {
        self.parts = parts
        self.chunkSize = max(1, chunkSize)
        state.withLock { $0.skip = max(0, skip) }
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { close(state.descriptor) }
        }
    }

    /// The next chunk, or `nil` at the end.
    func next() throws -> [UInt8]? {
        try state.withLock { state in
            while state.index < parts.count {
                switch parts[state.index] {
                case .bytes(let bytes):
                    if state.skip > 0 {
                        let passed = min(Int64(bytes.count - state.offset), state.skip)
                        state.offset += Int(passed)
                        state.skip -= passed
                    }
                    if state.offset < bytes.count {
                        let end = min(bytes.count, state.offset + chunkSize)
                        defer { state.offset = end }
                        return Array(bytes[state.offset..<end])
                    }
                case .file(let url, let length):
                    if !state.fileOpened {
                        state.descriptor = open(url.path, O_RDONLY)
                        guard state.descriptor >= 0 else {
                            throw FileFacts.error(errno, reading: url)
                        }
                        state.remaining = length
                        state.fileOpened = true
                        if state.skip > 0 {
                            let passed = min(length, state.skip)
                            guard lseek(state.descriptor, off_t(passed), SEEK_SET) >= 0 else {
                                throw FileFacts.error(errno, reading: url)
                            }
                            state.remaining -= passed
                            state.skip -= passed
                        }
                    }
                    if state.remaining > 0 {
                        let want = Int(min(Int64(chunkSize), state.remaining))
                        var chunk = [UInt8](repeating: 0, count: want)
                        let got = chunk.withUnsafeMutableBytes {
                            read(state.descriptor, $0.baseAddress, want)
                        }
                        guard got > 0 else {
                            let code = got < 0 ? errno : 0
                            throw CourierError(
                                .invalidRequest, stage: .transport,
                                message: got < 0
                                    ? "reading \(url.path) failed: errno \(code)"
                                    : "\(url.path) shrank while it was being sent")
                        }
                        state.remaining -= Int64(got)
                        return Array(chunk.prefix(got))
                    }
                    close(state.descriptor)
                    state.descriptor = -1
                }
                state.index += 1
                state.offset = 0
                state.fileOpened = false
            }
            return nil
        }
    }
}

/// File-system facts the body builders need, with typed errors.
package enum FileFacts {
    /// The size of a regular file.
    package static func size(of url: URL) throws(CourierError) -> Int64 {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw error(errno, reading: url) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw CourierError(.invalidRequest, stage: .build, message: "\(url.path) is not a regular file")
        }
        return Int64(info.st_size)
    }

    static func error(_ code: Int32, reading url: URL) -> CourierError {
        let reason = code == ENOENT ? "no such file" : code == EACCES ? "permission denied" : "errno \(code)"
        return CourierError(.invalidRequest, stage: .build, message: "cannot read \(url.path): \(reason)")
    }
}
