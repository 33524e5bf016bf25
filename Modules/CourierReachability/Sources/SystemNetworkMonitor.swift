import CourierCore
public import CourierResilience

/// The platform's own monitor, for code that runs on both.
public enum SystemNetworkMonitor {
    /// ``NetlinkNetworkMonitor`` on Linux, `PathNetworkMonitor` where
    /// Apple's Network framework exists.
    ///
    /// - Throws: ``NetworkMonitorError`` when the Linux monitor cannot start.
    public static func start() async throws -> any NetworkMonitor {
        #if os(Linux)
            try await NetlinkNetworkMonitor.start()
        #elseif canImport(Network)
            PathNetworkMonitor()
        #else
            throw UnsupportedPlatform()
        #endif
    }

    /// No monitor is known for this platform.
    public struct UnsupportedPlatform: Error, Sendable, CustomStringConvertible {
        /// What happened.
        public var description: String { "no network monitor on this platform" }
    }
}
