@_spi(Transport) import CourierCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a request body reaches URLSession without loading big bodies into memory.
///
/// URLSession uploads either `Data` or one file. A body already in memory
/// goes as `Data`. A body of several parts with files (multipart) is written
/// to a temporary file first, chunk by chunk, and uploaded from there; the
/// file is deleted when the exchange ends. (One-shot streams arrive gathered:
/// see `RedirectPolicy.exchange`.)
///
/// In-memory bodies are never spooled, whatever their size: on Linux,
/// FoundationNetworking's file upload reads the file asynchronously and,
/// when a read completes after the transfer ended (the server answered
/// early, closed the connection, or the task was cancelled or timed out
/// mid-upload), un-pauses the finished libcurl handle with a `try!` that
/// crashes the process (libcurl refuses to un-pause a handle without a
/// connection). Uploads from `Data` have no such read.
enum BodySpool {
    /// What to hand to URLSession.
    enum Source {
        case data(Data)
        case file(URL, temporary: Bool)
    }

    /// The largest in-memory body sent as `Data`; larger ones are spooled.
    static let inMemoryLimit = TransportOptions.defaultMaxBodySize

    static func prepare(_ body: RequestBody) async throws -> Source {
        if let parts = body.parts {
            if parts.count == 1, case .file(let url, _) = parts[0] { return .file(url, temporary: false) }
            if parts.allSatisfy({ if case .bytes = $0 { true } else { false } }),
                (body.length ?? 0) <= Int64(inMemoryLimit)
            {
                return .data(Data(try await body.collect(upTo: inMemoryLimit)))
            }
            return .file(try await spool(partsOf: body), temporary: true)
        }
        return .data(Data(try await body.collect(upTo: TransportOptions.defaultMaxBodySize)))
    }

    /// Copies a replayable body to a temporary file on a queue of its own:
    /// reading its files and writing blocks, so not on the concurrency pool.
    private static func spool(partsOf body: RequestBody) async throws -> URL {
        guard let reader = body.makeReader(chunkSize: 256 * 1024) else {
            throw TransportError(.other, "a body of parts has no reader")
        }
        let url = temporaryURL()
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do {
                    let handle = try create(url)
                    defer { try? handle.close() }
                    while let chunk = try reader.next() { try handle.write(contentsOf: chunk) }
                    continuation.resume(returning: url)
                } catch {
                    try? FileManager.default.removeItem(at: url)
                    continuation.resume(throwing: spoolError(error))
                }
            }
        }
    }

    private static let queue = DispatchQueue(label: "courier.urlsession.spool")

    private static func temporaryURL() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("courier-upload-\(UUID().uuidString)")
    }

    private static func create(_ url: URL) throws -> FileHandle {
        guard
            FileManager.default.createFile(
                atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw TransportError(.fileSystem, "cannot create the upload spool file \(url.path)") }
        return try FileHandle(forWritingTo: url)
    }

    private static func spoolError(_ error: any Error) -> any Error {
        if error is TransportError || error is CourierError { return error }
        return TransportError(.fileSystem, "spooling the request body failed: \(error)")
    }
}
