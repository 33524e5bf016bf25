import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The disk store's file system work, private by construction: its
/// directory is 0700 and every file it creates is 0600 from the moment it
/// exists (made with that mode, never widened by the umask and narrowed
/// later). Bodies are written to a temporary file and renamed into place,
/// so a reader never sees half a body.
enum DiskFiles {
    /// Creates `directory` (and its parents) if missing, then makes it 0700:
    /// the store owns it.
    static func makePrivateDirectory(_ directory: URL) throws(CacheStoreError) {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CacheStoreError(
                .io, "cannot create the cache directory \(directory.path): \(error)", underlying: error)
        }
        guard chmod(directory.path, 0o700) == 0 else {
            throw CacheStoreError(.io, "cannot make \(directory.path) private: \(errnoText())")
        }
    }

    /// Creates `path` as an empty 0600 file unless it exists (then makes it 0600).
    static func makePrivateFile(_ path: String) throws(CacheStoreError) {
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CacheStoreError(.io, "cannot create \(path): \(errnoText())")
        }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else {
            throw CacheStoreError(.io, "cannot make \(path) private: \(errnoText())")
        }
    }

    /// Writes `bytes` to a new 0600 file in `directory` and renames it to
    /// `name`: the file is either absent or whole.
    static func writeAtomically(_ bytes: [UInt8], named name: String, in directory: URL)
        throws(CacheStoreError)
    {
        let temporary = directory.appendingPathComponent(".tmp-\(randomName())").path
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CacheStoreError(.io, "cannot create a body file in \(directory.path): \(errnoText())")
        }
        var written = 0
        let failure: String? = bytes.withUnsafeBytes { raw -> String? in
            while written < raw.count {
                let count = write(descriptor, raw.baseAddress.map { $0 + written }, raw.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errnoText()
                }
                written += count
            }
            return nil
        }
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw CacheStoreError(.io, "cannot write a body file in \(directory.path): \(failure)")
        }
        guard rename(temporary, directory.appendingPathComponent(name).path) == 0 else {
            let text = errnoText()
            unlink(temporary)
            throw CacheStoreError(.io, "cannot move a body file into place: \(text)")
        }
    }

    /// The bytes of `name` in `directory`, or `nil` when it cannot be read.
    static func read(_ name: String, in directory: URL) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)
        else {
            return nil
        }
        return [UInt8](data)
    }

    /// Removes `name` from `directory`; a missing file is fine.
    static func remove(_ name: String, in directory: URL) {
        unlink(directory.appendingPathComponent(name).path)
    }

    /// The names of the body files (and leftover temporary files) in
    /// `directory`, with their modification dates.
    static func bodyFiles(in directory: URL) -> [(name: String, modified: Date)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(bodySuffix) || $0.hasPrefix(".tmp-") }.map { name in
            let attributes = try? FileManager.default.attributesOfItem(
                atPath: directory.appendingPathComponent(name).path)
            return (name, attributes?[.modificationDate] as? Date ?? .distantPast)
        }
    }

    /// A new body file's name for `key`: unique per write, so that replacing
    /// an entry never rewrites a file another process may be reading.
    static func bodyName(for key: CacheKey) -> String {
        "\(key.digest.prefix(16))-\(randomName())\(bodySuffix)"
    }

    static let bodySuffix = ".body"

    private static func randomName() -> String {
        (0..<16).map { _ in String(UInt8.random(in: 0..<16), radix: 16) }.joined()
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
