@_spi(Transport) public import CourierCore

extension CourierError.Code {
    /// ``Transfer/pause()`` or ``PreparedCall/pause()`` was asked of a call
    /// whose transport cannot hold a transfer in flight without losing its
    /// bytes (FoundationNetworking's URLSession on Linux, which restarts a
    /// suspended task from its first byte). Nothing was paused; the call
    /// runs on.
    public static let pauseUnsupported = Self("pauseUnsupported")
}

extension TransferControl {
    /// Pauses, or says with `CourierError.Code.pauseUnsupported` why it cannot.
    func pauseOrThrow() throws(CourierError) {
        guard pause() else {
            throw CourierError(
                .pauseUnsupported, stage: .transport,
                message:
                    "\(transportName) cannot pause a transfer in flight without losing its bytes; "
                    + "the call runs on (CurlTransport and AsyncHTTPClientTransport can)")
        }
    }
}
