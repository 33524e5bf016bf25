import Foundation

/// A WebSocket conversation (RFC 6455) a stub holds instead of a body: a
/// request that asks to upgrade (`Upgrade: websocket`) gets `101 Switching
/// Protocols` and then these steps, in order; a request that does not ask
/// gets `426 Upgrade Required`.
///
/// In contract files, a response's `webSocket`:
/// ```json
/// "webSocket": {
///   "subprotocols": ["chat.v1"],
///   "steps": [
///     {"send": {"text": "welcome"}},
///     {"expect": {"text": {"matches": "hello .*"}}, "answer": [{"text": "hi"}]},
///     {"echo": 2},
///     {"send": {"binary": "AAEC"}, "delayMs": 20},
///     {"fault": "invalidUTF8"},
///     {"close": {"code": 1000, "reason": "bye"}}
///   ],
///   "then": "echo"
/// }
/// ```
/// Whatever the steps, the server answers each ping with a pong (until a
/// `noPong` fault), answers the client's close with its own, and records
/// every frame in the journal. After the steps, `then` says what it does:
/// `echo` every message back, `hold` the connection open, or `close` it
/// (1000). Frames are NIO's (`NIOWebSocket`); only the faults write bytes
/// by hand, because a correct encoder cannot write them.
public struct WebSocketScript: Sendable, Hashable {
    /// A message the server sends.
    public enum Message: Sendable, Hashable {
        /// A text message.
        case text(String)
        /// A binary message (`binary` in files: base64).
        case binary([UInt8])
    }

    /// What a step expects of the client's next message.
    public enum Expectation: Sendable, Hashable {
        /// A text message matching this.
        case text(StringMatcher)
        /// Any binary message.
        case binary
    }

    /// Misbehaviour a client must survive with a typed error.
    public enum Fault: Sendable, Hashable {
        /// Half a frame (a head promising `bytes`, then only some of
        /// them), then the connection closes without a close frame.
        case dropMidFrame(bytes: Int)
        /// Pings go unanswered from here on.
        case noPong
        /// One binary message of `bytes` bytes, in one frame.
        case oversizedFrame(bytes: Int)
        /// A text frame whose payload is not UTF-8.
        case invalidUTF8
        /// A text message in `fragments` frames with a ping between each
        /// two: control frames may come between fragments (RFC 6455 §5.4).
        case fragmented(String, fragments: Int)
    }

    /// One step of the conversation, after `delayMs`.
    public enum Step: Sendable, Hashable {
        /// Sends a message unprompted.
        case send(Message)
        /// Waits for the client's next message; sends `answer` when it
        /// matches, else closes with 1008 (policy violation) naming the step.
        case expect(Expectation, answer: [Message])
        /// Sends back the client's next `count` messages.
        case echo(count: Int)
        /// Sends a ping with this payload.
        case ping([UInt8])
        /// Closes with `code` and `reason` and waits for the client's close.
        case close(code: UInt16, reason: String)
        /// Misbehaves.
        case fault(Fault)
    }

    /// What the server does after the last step.
    public enum Then: String, Sendable, Hashable {
        /// Sends every message back.
        case echo
        /// Keeps the connection open, answering pings and a close.
        case hold
        /// Closes with 1000.
        case close
    }

    /// The subprotocols the server speaks, best first: the first the client
    /// also offers is chosen (`Sec-WebSocket-Protocol`); none in common, or
    /// none offered, is no subprotocol.
    public var subprotocols: [String]
    /// The steps, each with its delay in milliseconds.
    public var steps: [(step: Step, delayMs: Int)]
    /// What happens after the steps.
    public var then: Then

    /// A script.
    public init(subprotocols: [String] = [], steps: [(step: Step, delayMs: Int)] = [], then: Then = .echo) {
        self.subprotocols = subprotocols
        self.steps = steps
        self.then = then
    }

    /// Equal when subprotocols, steps (with their delays) and `then` are.
    public static func == (lhs: WebSocketScript, rhs: WebSocketScript) -> Bool {
        lhs.subprotocols == rhs.subprotocols && lhs.then == rhs.then
            && lhs.steps.map(\.step) == rhs.steps.map(\.step)
            && lhs.steps.map(\.delayMs) == rhs.steps.map(\.delayMs)
    }

    /// Hashes every field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(subprotocols)
        hasher.combine(then)
        for (step, delay) in steps {
            hasher.combine(step)
            hasher.combine(delay)
        }
    }
}
