public import CourierCore

extension CourierError.Code {
    /// The client's ``CircuitBreaker`` refused the attempt: the host
    /// failed too often lately. Nothing was sent; ``/CourierCore/CourierError/underlying``
    /// is a ``CircuitOpenError`` saying until when. Not retried.
    public static let circuitOpen = Self("circuitOpen")
}
