@_spi(Locking) import CourierCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a cookie file could not be read or written.
public struct CookieFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public let path: String
    /// What went wrong.
    public let reason: String

    /// The file and the reason.
    public var description: String { "cookie file \(path): \(reason)" }
}

/// A jar's file: JSON, one object per persistent cookie, written whole to a
/// private temporary file (mode 0600) beside it and renamed over it, so a
/// crash leaves the old file or the new one, never half of one.
enum CookieFile {
    /// The file's top level.
    private struct Contents: Codable {
        var format = "courier-cookies"
        var version = 1
        var cookies: [Cookie]
    }

    /// The cookies in `file`; none when it does not exist.
    static func read(_ file: URL) throws(CookieFileError) -> [Cookie] {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return []
        } catch {
            throw CookieFileError(path: file.path, reason: "cannot be read (\(error.localizedDescription))")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let contents = try? decoder.decode(Contents.self, from: data),
            contents.format == "courier-cookies"
        else { throw CookieFileError(path: file.path, reason: "is not a Courier cookie file") }
        guard contents.version == 1 else {
            throw CookieFileError(path: file.path, reason: "has format version \(contents.version), not 1")
        }
        return contents.cookies.filter { cookie in
            !cookie.name.isEmpty && SetCookie.parse("\(cookie.name)=\(cookie.value)") != nil
        }
    }

    /// Replaces `file` with `cookies`, atomically, readable by its owner only.
    static func write(_ cookies: [Cookie], to file: URL) throws(CookieFileError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(Contents(cookies: cookies)) else {
            throw CookieFileError(path: file.path, reason: "cannot be encoded")
        }
        let temporary = file.path + ".tmp-\(UInt32.random(in: .min ... .max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(file, "cannot create \(temporary)") }
        let complete: Bool
        do {
            try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: data)
            complete = true
        } catch {
            complete = false
        }
        let synced = complete && fsync(descriptor) == 0
        close(descriptor)
        guard synced, rename(temporary, file.path) == 0 else {
            let error = failure(file, "cannot be written")
            unlink(temporary)
            throw error
        }
    }

    private static func failure(_ file: URL, _ what: String) -> CookieFileError {
        CookieFileError(path: file.path, reason: "\(what): \(String(cString: strerror(errno)))")
    }

    /// `cookies` in Netscape format: one line per cookie, tab-separated —
    /// domain (with `#HttpOnly_` and a leading dot as curl writes them),
    /// subdomains, path, secure, expiry (Unix seconds, 0 for session), name, value.
    static func netscape(_ cookies: [Cookie]) -> String {
        var lines = ["# Netscape HTTP Cookie File", ""]
        for cookie in cookies {
            let domain = (cookie.httpOnly ? "#HttpOnly_" : "") + (cookie.hostOnly ? "" : ".") + cookie.domain
            let expiry = cookie.expires.map { Int64(max(0, $0.timeIntervalSince1970)) } ?? 0
            lines.append(
                [
                    domain, cookie.hostOnly ? "FALSE" : "TRUE", cookie.path, cookie.secure ? "TRUE" : "FALSE",
                    "\(expiry)", cookie.name, cookie.value,
                ].joined(separator: "\t"))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Writes a jar's file on a serial queue of its own (never on the Swift
/// concurrency pool), coalescing a burst of changes into one write.
final class CookieFileWriter: Sendable {
    private struct State {
        var scheduled = false
        var lastError: CookieFileError?
    }

    private let file: URL
    private let queue = DispatchQueue(label: "courier.cookies.file")
    private let state = Locked(State())

    init(_ file: URL) { self.file = file }

    /// Writes what `snapshot` returns, soon; a write already scheduled and
    /// not yet started takes this change with it.
    func schedule(_ snapshot: @escaping @Sendable () -> [Cookie]) {
        let alreadyScheduled = state.withLock { state in
            defer { state.scheduled = true }
            return state.scheduled
        }
        guard !alreadyScheduled else { return }
        queue.async { self.write(snapshot) }
    }

    private func write(_ snapshot: () -> [Cookie]) {
        state.withLock { $0.scheduled = false }  // later changes schedule another write
        do throws(CookieFileError) {
            try CookieFile.write(snapshot(), to: file)
            state.withLock { $0.lastError = nil }
        } catch {
            state.withLock { $0.lastError = error }
        }
    }

    /// Returns once every write scheduled so far is done; throws the last write's error.
    func flush() async throws(CookieFileError) {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        if let error = state.withLock({ $0.lastError }) { throw error }
    }
}
