import CourierCore
import Testing

@testable import CourierCurl

/// `hostOverrides` as libcurl's `CURLOPT_CONNECT_TO` entries: any port of the
/// host to the target on the same port, an IPv6 target in brackets, in a
/// stable order; what libcurl would misread is refused.
struct HostOverrideEntryTests {
    @Test func entriesNameTheHostAndTheTargetForEveryPort() throws {
        let entries = try CurlHandle.connectToEntries([
            "b.example": "10.0.0.2", "a.example": "::1", "c.example": "[fd00::7]",
            "d.example": "origin.internal",
        ])
        #expect(
            entries == [
                "a.example::[::1]:", "b.example::10.0.0.2:", "c.example::[fd00::7]:",
                "d.example::origin.internal:",
            ])
    }

    @Test(arguments: [
        ["a.example:443": "10.0.0.2"], ["": "10.0.0.2"], ["a.example": ""],
        ["a.example": "10.0.0.2,10.0.0.3"],
        ["a example": "10.0.0.2"], ["a.example": "10.0.0.2\n"],
    ])
    func whatLibcurlWouldMisreadIsRefused(overrides: [String: String]) {
        #expect(throws: TransportError.self) { try CurlHandle.connectToEntries(overrides) }
    }
}
