// The hand-written baselines: async-http-client used directly, and
// URLSession with a data delegate (FoundationNetworking has no
// `bytes(for:)`), each splitting lines by hand.

import AsyncHTTPClient
import Foundation
import NIOCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A row of the NDJSON export.
struct Row: Decodable, Sendable {
    let id: Int
    let name: String
    let price: Double
    let tags: [String]
}

/// What a run counted: events (or rows), and a checksum so nothing is optimised away.
struct Tally: Sendable {
    var items = 0
    var checksum = 0
}

/// A hand-written splitter: LF-terminated lines out of chunks, an SSE event
/// at each blank line (its `data:` lines joined), or each line decoded as a row.
struct HandSplitter {
    enum Mode { case events, rows }
    let mode: Mode
    var carry: [UInt8] = []
    var data: [UInt8] = []
    var tally = Tally()
    let decoder = JSONDecoder()

    init(_ mode: Mode) { self.mode = mode }

    mutating func feed<Bytes: Collection<UInt8>>(_ chunk: Bytes) throws where Bytes.Index == Int {
        var start = chunk.startIndex
        var index = start
        while index < chunk.endIndex {
            if chunk[index] == 10 {
                if carry.isEmpty {
                    try line(Array(chunk[start..<index]))
                } else {
                    carry += chunk[start..<index]
                    try line(carry)
                    carry.removeAll(keepingCapacity: true)
                }
                start = index + 1
            }
            index += 1
        }
        carry += chunk[start..<chunk.endIndex]
    }

    private mutating func line(_ bytes: [UInt8]) throws {
        switch mode {
        case .rows:
            guard !bytes.isEmpty else { return }
            let row = try decoder.decode(Row.self, from: Data(bytes))
            tally.items += 1
            tally.checksum &+= row.id
        case .events:
            if bytes.isEmpty {
                guard !data.isEmpty else { return }
                let text = String(decoding: data, as: UTF8.self)
                tally.items += 1
                tally.checksum &+= text.utf8.count
                data.removeAll(keepingCapacity: true)
            } else if bytes.starts(with: Array("data: ".utf8)) {
                if !data.isEmpty { data.append(10) }
                data += bytes.dropFirst(6)
            }
        }
    }
}

/// async-http-client, its body read buffer by buffer.
func viaAsyncHTTPClient(_ client: HTTPClient, _ url: String, _ mode: HandSplitter.Mode) async throws -> Tally
{
    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(600))
    var splitter = HandSplitter(mode)
    for try await buffer in response.body {
        try buffer.withUnsafeReadableBytes { try splitter.feed($0.assumingMemoryBound(to: UInt8.self)) }
    }
    return splitter.tally
}

/// URLSession with a data delegate, splitting as the data arrives.
final class SplittingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: the splitter and continuation are touched only on the
    // session's delegate queue, which is serial (maxConcurrentOperationCount 1).
    private var splitter: HandSplitter
    private var continuation: CheckedContinuation<Tally, any Error>?
    private var failure: (any Error)?

    init(_ mode: HandSplitter.Mode, _ continuation: CheckedContinuation<Tally, any Error>) {
        splitter = HandSplitter(mode)
        self.continuation = continuation
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard failure == nil else { return }
        do {
            try data.withUnsafeBytes { try splitter.feed($0.assumingMemoryBound(to: UInt8.self)) }
        } catch {
            failure = error
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error = failure ?? error {
            continuation?.resume(throwing: error)
        } else {
            continuation?.resume(returning: splitter.tally)
        }
        continuation = nil
    }
}

func viaURLSession(_ url: URL, _ mode: HandSplitter.Mode) async throws -> Tally {
    try await withCheckedThrowingContinuation { continuation in
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let delegate = SplittingDelegate(mode, continuation)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: queue)
        var request = URLRequest(url: url)
        request.timeoutInterval = 600
        session.dataTask(with: request).resume()
        session.finishTasksAndInvalidate()
    }
}
