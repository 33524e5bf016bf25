import CCourierSanitizer
import CCurl
import CourierContentCoding
@_spi(Transport) import CourierCore
import Foundation
import HTTPTypes

extension CurlTransfer {
    // MARK: - Callbacks (on the transport's thread)

    /// A body's bytes as libcurl read them, still content-coded: decoded
    /// here (``ContentDecoder``), then delivered.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        watchdog?.touch()
        if case .undecided = coding, let code = head.status, code >= 200 {
            if let refusal = ContentDecoder.refusal(for: head.fields[values: .contentEncoding]) {
                failure = refusal
                return 0
            }
            coding =
                ContentDecoder.make(
                    for: head.fields[values: .contentEncoding], expansion: options.downloadExpansionLimit
                ).map(Coding.decoded) ?? .asSent
        }
        guard case .decoded(let decoder) = coding else {
            switch deliver(bytes, mayRefuse: true) {
            case .taken: return bytes.count
            case .refused: return Int(CURL_WRITEFUNC_PAUSE)
            case .failed: return 0
            }
        }
        // Decoded bytes cannot be offered again: libcurl would hand back the
        // coded ones, already inflated. A stream takes every decoded piece,
        // and the transfer pauses once the buffer is past its mark.
        var pause = false
        do {
            let going = try decoder.decode(bytes) { piece in
                switch deliver(piece, mayRefuse: false) {
                case .taken: return true
                case .refused:
                    pause = true
                    return true
                case .failed: return false
                }
            }
            guard going else { return 0 }
        } catch {
            failure = error
            return 0
        }
        if pause, let handle { curl_easy_pause(handle, CURLPAUSE_RECV) }
        return bytes.count
    }

    /// What became of delivered bytes.
    private enum Delivery {
        case taken, refused, failed
    }

    /// Hands decoded bytes to the download's file, the stream or the body.
    /// A stream that is full refuses them when `mayRefuse` (libcurl offers
    /// them again after the pause) and otherwise takes them, asking for a
    /// pause.
    private func deliver(_ bytes: UnsafeRawBufferPointer, mayRefuse: Bool) -> Delivery {
        downloaded += Int64(bytes.count)
        if let download {
            if download.head == nil, let code = head.status {
                // What a resumable download keeps its bytes by.
                download.head = HTTPResponse(status: .init(code: code), headerFields: head.fields)
            }
            if let limit = options.maxDownloadSize, downloaded > limit {
                failure = TransportError(.bodyTooLarge, "the download exceeds \(limit) bytes")
                return .failed
            }
            do {
                try download.write(bytes)
            } catch {
                failure = error
                return .failed
            }
        } else if let stream {
            if mayRefuse {
                // Not taken: libcurl holds the bytes and offers them again once
                // the reader has caught up (the engine resumes the transfer).
                guard case .accepted = stream.offer(Array(bytes)) else {
                    downloaded -= Int64(bytes.count)
                    return .refused
                }
            } else if case .full = stream.append(Array(bytes)) {
                reportProgress()
                return .refused
            }
        } else {
            guard body.count + bytes.count <= options.maxBodySize else {
                failure = TransportError(.bodyTooLarge, "the body exceeds \(options.maxBodySize) bytes")
                return .failed
            }
            let needed = body.count + bytes.count
            if needed > body.capacity {
                // A known length sizes the buffer once; an unknown (or
                // decoded, longer) one grows it by doubling. Large buffers
                // come from the transport's pool, whose pages stay mapped.
                let length = body.isEmpty ? head.contentLength.map { min($0, options.maxBodySize) } ?? 0 : 0
                let wanted = max(needed, length, body.capacity * 2)
                if CurlBufferPool.pools(wanted) {
                    var larger = buffers.take(atLeast: wanted)
                    larger.append(contentsOf: body)
                    buffers.give(body)
                    body = larger
                } else {
                    body.reserveCapacity(wanted)
                }
            }
            body.append(contentsOf: bytes)
        }
        reportProgress()
        return .taken
    }

    private func reportProgress() {
        guard let progress = options.progress else { return }
        let total = progressTotal ?? TransferProgress.downloadTotal(of: head.fields)
        progressTotal = total
        progress(TransferProgress(direction: .download, completed: downloaded, total: total))
    }

    /// Returns false to abort when the response head grows past the limit or
    /// its framing is ambiguous (``ResponseHeadCheck``), before any body byte.
    func header(_ line: UnsafeRawBufferPointer) -> Bool {
        watchdog?.touch()
        if let problem = head.take(line) {
            failure = problem
            return false
        }
        // The blank line after an interim status (a 104's upload address).
        if let interim = options.interimResponse, line.count <= 2,
            line.allSatisfy({ $0 == 13 || $0 == 10 }), let status = head.status, status < 200, status != 101
        {
            interim(
                HTTPResponse(
                    status: .init(code: status, reasonPhrase: head.reason), headerFields: head.fields))
        }
        // The blank line after a final status: a streamed response's head is complete.
        if stream != nil, line.count <= 2, line.allSatisfy({ $0 == 13 || $0 == 10 }),
            let status = head.status, status >= 200, continuation != nil,
            proxyRefusal(status: status) == nil
        {
            let response = RawResponse(
                head: HTTPResponse(
                    status: .init(code: status, reasonPhrase: head.reason), headerFields: head.fields),
                body: .empty, metrics: metrics())
            handOver()?.resume(returning: response)
        }
        return true
    }
}
