#if Configuration
    /// A configuration value Courier cannot use: the key as the reader
    /// names it, what was found, and what was expected.
    ///
    /// A value that is present but wrong is an error, never a silent
    /// default: `COURIER_TIMEOUT_MS=5s` stops the program at start-up
    /// instead of leaving the 60-second default in place.
    public struct CourierConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The key, dot-separated, from the reader Courier was given (`retry.maxAttempts`).
        public var key: String
        /// The value found, as text; `nil` when it is a secret (a proxy URL
        /// may carry a password) or could not be shown.
        public var found: String?
        /// What the key takes (`a whole number of milliseconds, 0 or more`).
        public var expected: String

        /// Creates an error.
        public init(key: String, found: String?, expected: String) {
            self.key = key
            self.found = found
            self.expected = expected
        }

        /// `courier.timeoutMs: expected …, found "5s"`.
        public var description: String {
            "\(key): expected \(expected), found "
                + (found.map { "\"\($0)\"" } ?? "a value that is not shown")
        }
    }
#endif
