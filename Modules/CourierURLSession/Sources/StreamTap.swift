@_spi(Locking) @_spi(Transport) import CourierCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A streamed body's way from the session's delegate to the reader's
/// ``BodyStreamBuffer``.
///
/// FoundationNetworking (Linux) cannot pause a running task: its `suspend()`
/// takes the transfer out of libcurl's hands and `resume()` starts it over
/// from the first byte. So on Linux bytes that arrive while the buffer is
/// full wait here, up to the call's `maxBodySize`; a reader further behind
/// than that ends the stream with ``TransportError/Code/bodyTooLarge``
/// rather than letting memory grow without bound. Apple's URLSession does
/// pause a suspended data task, and there the task is suspended while bytes
/// wait and resumed once the reader has drained them.
final class StreamTap: Sendable {
    private struct State {
        var pending: [[UInt8]] = []
        var pendingIndex = 0
        var pendingBytes = 0
        /// How the task ended, once it has: the reader sees it after the bytes still waiting.
        var ended: TransportError??
        var finished = false
        var suspended = false
    }

    let buffer = BodyStreamBuffer()
    private let state = Locked(State())
    private let overflowLimit: Int
    private let task: URLSessionTask

    init(task: URLSessionTask, overflowLimit: Int) {
        self.task = task
        self.overflowLimit = overflowLimit
    }

    /// Sets what stops the task when the reader gives up; before the task starts.
    func onCancel(_ cancel: @escaping @Sendable () -> Void) {
        buffer.setHandlers(onDrain: { [weak self] in self?.drain() }, onCancel: cancel)
    }

    /// Bytes arrived (on the delegate queue).
    /// - Returns: false when the reader has fallen too far behind: the stream
    ///   has been ended with an error; cancel the task.
    func take(_ bytes: [UInt8]) -> Bool {
        let (kept, suspend) = state.withLock { state -> (Bool, Bool) in
            if state.finished { return (true, false) }
            if state.pendingIndex == state.pending.count, case .accepted = buffer.offer(bytes) {
                return (true, false)
            }
            state.pending.append(bytes)
            state.pendingBytes += bytes.count
            guard state.pendingBytes <= overflowLimit else {
                state.finished = true
                state.pending = []
                return (false, false)
            }
            defer { state.suspended = true }
            return (true, !state.suspended)
        }
        if !kept {
            buffer.finish(
                throwing: TransportError(
                    .bodyTooLarge,
                    "the reader fell more than \(overflowLimit) bytes behind a stream this URLSession cannot pause"
                ))
        }
        #if !canImport(FoundationNetworking)
            if suspend { task.suspend() }
        #endif
        return kept
    }

    /// The reader drained the buffer: hand over what waits, in order.
    private func drain() {
        let (ending, resume) = state.withLock { state -> (TransportError??, Bool) in
            while state.pendingIndex < state.pending.count {
                let next = state.pending[state.pendingIndex]
                guard case .accepted = buffer.offer(next) else { return (nil, false) }
                state.pendingIndex += 1
                state.pendingBytes -= next.count
            }
            state.pending = []
            state.pendingIndex = 0
            let resume = state.suspended
            state.suspended = false
            guard let ended = state.ended, !state.finished else { return (nil, resume) }
            state.finished = true
            return (ended, resume)
        }
        if let ending { buffer.finish(throwing: ending) }
        #if !canImport(FoundationNetworking)
            if resume { task.resume() }
        #else
            _ = resume
        #endif
    }

    /// The task ended, with `error` or cleanly: the reader sees it after
    /// the bytes still waiting.
    func end(_ error: TransportError?) {
        let now = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.ended = .some(error)
            guard state.pendingIndex == state.pending.count else { return false }
            state.finished = true
            return true
        }
        if now { buffer.finish(throwing: error) }
    }
}
