import CCurl
import CourierCore
import CourierWebSocket

/// The connection thread's frames: `curl_ws_recv` read into whole messages
/// (fragments joined within the limits, control frames between fragments
/// passed on as they come) and `curl_ws_send` fed until each frame is out.
/// libcurl unmasks, masks and frames; nothing here parses a frame header.
struct CurlWebSocketFrames {
    /// What one turn of reading came to.
    enum Reading {
        case messages([WebSocketInbound])
        /// The peer closed the connection (after these).
        case ended([WebSocketInbound])
        /// A limit, or libcurl refused a frame (after these).
        case failed([WebSocketInbound], any Error)
    }

    private let handle: UnsafeMutableRawPointer?
    private let limits: WebSocketLimits
    /// The data message being joined: its kind, bytes so far, frames so far.
    private var message: (text: Bool, bytes: [UInt8], frames: Int)?
    /// A control frame's payload so far, and its flags.
    private var control: (flags: Int32, bytes: [UInt8])?
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)
    /// Frames to write, oldest first; the first may be part written.
    private var outgoing:
        [(payload: [UInt8], flags: UInt32, written: Int, sent: CheckedContinuation<Void, any Error>)] = []
    /// The last read stopped at the app's room with libcurl still holding frames.
    private(set) var hasBufferedInput = false
    /// A frame waits for the socket to take more.
    private(set) var isWaitingToWrite = false

    init(handle: UnsafeMutableRawPointer?, limits: WebSocketLimits) {
        self.handle = handle
        self.limits = limits
    }

    // MARK: - Writing

    mutating func queue(_ sendings: [CurlWebSocketMailbox.Sending]) {
        for sending in sendings {
            let (payload, flags) = Self.wire(sending.frame)
            outgoing.append((payload, flags, 0, sending.sent))
        }
    }

    /// Writes queued frames until done or the socket is full. Returns the
    /// error that ends the connection, if writing failed.
    mutating func flush() -> (any Error)? {
        isWaitingToWrite = false
        while let first = outgoing.first {
            var sent = 0
            let remaining = first.payload.count - first.written
            let result = first.payload.withUnsafeBytes { bytes in
                curl_ws_send(
                    handle, bytes.baseAddress.map { $0 + first.written }, remaining, &sent, 0, first.flags)
            }
            if result == CURLE_AGAIN || (result == CURLE_OK && sent < remaining) {
                outgoing[0].written += sent
                isWaitingToWrite = true
                return nil
            }
            outgoing.removeFirst()
            guard result == CURLE_OK else {
                let error = TransportError(
                    .connectionFailed, "writing the WebSocket failed: \(Self.describe(result))")
                first.sent.resume(throwing: error)
                for rest in outgoing { rest.sent.resume(throwing: error) }
                outgoing = []
                return error
            }
            first.sent.resume()
        }
        return nil
    }

    /// The connection ends: frames not yet written fail.
    mutating func failUnsent() {
        for frame in outgoing {
            frame.sent.resume(throwing: TransportError(.cancelled, "the WebSocket connection is closed"))
        }
        outgoing = []
    }

    /// The payload and libcurl's flags for a frame.
    private static func wire(_ frame: WebSocketOutbound) -> ([UInt8], UInt32) {
        switch frame {
        case .message(.text(let text)): (Array(text.utf8), UInt32(CURLWS_TEXT))
        case .message(.binary(let bytes)): (bytes, UInt32(CURLWS_BINARY))
        case .ping(let payload): (payload, UInt32(CURLWS_PING))
        case .pong(let payload): (payload, UInt32(CURLWS_PONG))
        case .close(let close): (close.payload, UInt32(CURLWS_CLOSE))
        }
    }

    // MARK: - Reading

    /// Reads until libcurl has nothing more, `room` messages are in, or the
    /// connection ends.
    mutating func read(upTo room: Int) -> Reading {
        var messages: [WebSocketInbound] = []
        hasBufferedInput = false
        while true {
            if messages.count >= room {
                hasBufferedInput = true
                return .messages(messages)
            }
            var received = 0
            var flags: Int32 = 0
            var bytesLeft: curl_off_t = 0
            let result = scratch.withUnsafeMutableBytes { buffer in
                courier_ws_recv(handle, buffer.baseAddress, buffer.count, &received, &flags, &bytesLeft)
            }
            if result == CURLE_AGAIN { return .messages(messages) }
            if result == CURLE_GOT_NOTHING { return .ended(messages) }
            guard result == CURLE_OK else {
                return .failed(
                    messages,
                    TransportError(
                        .connectionFailed, "reading the WebSocket failed: \(Self.describe(result))"))
            }
            do {
                if let inbound = try take(flags: flags, bytesLeft: bytesLeft, received) {
                    messages.append(inbound)
                }
            } catch {
                return .failed(messages, error)
            }
        }
    }

    /// Adds one chunk of a frame; returns a message or control frame once whole.
    private mutating func take(flags: Int32, bytesLeft: curl_off_t, _ count: Int) throws(WebSocketFailure)
        -> WebSocketInbound?
    {
        let chunk = scratch[0..<count]
        let controlBits = Int32(CURLWS_PING | CURLWS_PONG | CURLWS_CLOSE)
        if flags & controlBits != 0 {
            var pending = control ?? (flags, [])
            pending.bytes += chunk
            guard bytesLeft == 0 else {
                control = pending
                return nil
            }
            control = nil
            return Self.controlFrame(pending.flags, pending.bytes)
        }
        var joined = message ?? (flags & Int32(CURLWS_TEXT) != 0, [], 0)
        // What is in, this chunk and what the frame still has to come: a
        // message too large fails at its first chunk, not at its last.
        guard Int64(joined.bytes.count) + Int64(count) + Int64(bytesLeft) <= Int64(limits.maxMessageSize)
        else {
            throw .messageTooLarge("a message is larger than the limit of \(limits.maxMessageSize) bytes")
        }
        joined.bytes += chunk
        guard bytesLeft == 0 else {
            message = joined
            return nil
        }
        joined.frames += 1
        if joined.frames > limits.maxFrameCount {
            throw .tooManyFrames("a message came in more than \(limits.maxFrameCount) frames")
        }
        guard flags & Int32(CURLWS_CONT) == 0 else {
            message = joined
            return nil
        }
        message = nil
        return joined.text ? .text(joined.bytes) : .binary(joined.bytes)
    }

    private static func controlFrame(_ flags: Int32, _ bytes: [UInt8]) -> WebSocketInbound {
        if flags & Int32(CURLWS_PING) != 0 { return .ping(bytes) }
        if flags & Int32(CURLWS_PONG) != 0 { return .pong(bytes) }
        return .close(WebSocketClose(payload: bytes))
    }

    private static func describe(_ code: CURLcode) -> String {
        curl_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
    }
}
