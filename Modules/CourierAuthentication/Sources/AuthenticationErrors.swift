public import CourierCore

extension CourierError.Code {
    /// Authentication failed for good: the credential could not be
    /// refreshed (the refresh's error is ``/CourierCore/CourierError/underlying``), or
    /// refreshed too often (``Authenticator``'s loop guard).
    public static let authentication = Self("authentication")
}

extension CourierError.Stage {
    /// An ``Authenticator`` applying or refreshing a credential (5, or 7
    /// when it runs per attempt).
    public static let authentication = Self("authentication")
}
