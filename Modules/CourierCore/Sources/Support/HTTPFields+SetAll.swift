package import HTTPTypes

extension HTTPFields {
    /// Sets every field of `other`, replacing the fields of the same names
    /// (an interceptor's headers, a test double's).
    package mutating func setAll(_ other: HTTPFields) {
        for name in Set(other.map(\.name)) {
            self[values: name] = other[values: name]
        }
    }
}
