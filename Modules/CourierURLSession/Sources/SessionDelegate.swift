@_spi(Locking) @_spi(Transport) import CourierCore
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session's delegate: routes callbacks to each task's ``TaskState``.
final class SessionDelegate: NSObject, URLSessionDataDelegate, URLSessionWebSocketDelegate, Sendable {
    private let states = Locked<[Int: TaskState]>([:])
    private let webSockets = Locked<[Int: URLSessionWebSocketChannel]>([:])
    /// Where tasks are cancelled: FoundationNetworking's `cancel()` waits for
    /// the session's work queue, which can be busy for seconds with a fast
    /// sender, and that wait must not hold the delegate queue or the caller.
    private let cancellations = DispatchQueue(label: "courier.urlsession.cancel")

    /// Cancels `task` without waiting for it.
    func cancelInBackground(_ task: URLSessionTask) {
        cancellations.async { task.cancel() }
    }

    /// Invalidates `session` once the cancellations asked for before have
    /// run: FoundationNetworking's `task.cancel()` racing its
    /// `invalidateAndCancel()` on another thread is not safe.
    func invalidateInBackground(_ session: URLSession) {
        cancellations.async { session.invalidateAndCancel() }
    }

    func register(_ state: TaskState, for identifier: Int) { states.withLock { $0[identifier] = state } }

    func register(_ channel: URLSessionWebSocketChannel, for identifier: Int) {
        webSockets.withLock { $0[identifier] = channel }
    }

    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?
    ) {
        webSockets.withLock { $0[webSocketTask.taskIdentifier] }?.opened()
    }

    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
        didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
    ) {
        webSockets.withLock { $0[webSocketTask.taskIdentifier] }?.peerClosed(
            code: closeCode.rawValue, reason: reason)
    }

    private func state(_ task: URLSessionTask) -> TaskState? { states.withLock { $0[task.taskIdentifier] } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let state = state(dataTask)
        state?.moved()
        if let http = response as? HTTPURLResponse, let state, let problem = state.received(http) {
            // Refused before any body byte is read.
            state.abort(problem)
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
        state?.headArrived()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let state = state(dataTask) else { return }
        state.moved()
        if state.append(data) == .overflowed { cancelInBackground(dataTask) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard let state = state(task) else { return }
        state.moved()
        state.options.progress?(
            TransferProgress(direction: .upload, completed: totalBytesSent, total: state.uploadTotal))
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // Courier's RedirectPolicy decides; URLSession returns the 3xx as it is.
        completionHandler(nil)
    }

    /// Authentication challenges (Basic, Digest) are answered with "no
    /// credentials here", so that the 401 comes back as a response at once:
    /// FoundationNetworking suspends a task whose challenge nobody answers
    /// until its deadline, and credentials are Courier's business (an
    /// `Authenticator` interceptor, `AccessTokenPlugin`), never a credential
    /// store's. The session has no credential storage, so default handling
    /// has nothing to send.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(Darwin)
            // Apple's URLSession delivers the 401 itself once default
            // handling finds no credential; server trust stays its own.
            completionHandler(.performDefaultHandling, nil)
        #else
            // FoundationNetworking asks only after the whole 401 (head and
            // body) has reached the delegate, and its only way to decline is
            // to cancel the task: the state turns that cancellation back
            // into the response it already holds.
            state(task)?.declinedChallenge()
            completionHandler(.cancelAuthenticationChallenge, nil)
        #endif
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let channel = webSockets.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) {
            return channel.ended(error: error)
        }
        let state = states.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        if let http = task.response as? HTTPURLResponse { state?.received(http) }
        state?.taskEnded(error: error)
    }
}
