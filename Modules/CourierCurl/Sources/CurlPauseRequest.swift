import CCurl
@_spi(Transport) import CourierCore
import Synchronization

/// The app's wish for one transfer, paused or not (``CourierCore/TransferControl``):
/// written from any thread, applied on the engine's thread with
/// `curl_easy_pause` (``CurlTransfer/applyPause()``), which keeps the
/// connection and every byte, and which libcurl allows on that thread only.
final class CurlPauseRequest: Sendable {
    private let paused = Atomic<Bool>(false)

    /// Whether the app wants the transfer paused.
    var isPaused: Bool { paused.load(ordering: .acquiring) }

    /// Records the wish; the engine applies it when told (``CurlEngine/applyPause(_:)``).
    func set(_ value: Bool) { paused.store(value, ordering: .releasing) }
}

extension CurlTransfer {
    /// Pauses both directions, or lets them go on as the app's wish now
    /// says (on the engine thread, once the transfer has its handle). A
    /// stream whose reader is behind stays paused for receiving: the
    /// reader's drain resumes it.
    func applyPause() {
        guard let handle, let pauseRequest else { return }
        if pauseRequest.isPaused {
            curl_easy_pause(handle, CURLPAUSE_ALL)
        } else {
            curl_easy_pause(handle, stream?.isHoldingBack == true ? CURLPAUSE_RECV : CURLPAUSE_CONT)
        }
    }
}
