public import CourierCore
public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What a response says about the client's rate: how long to be quiet, read
/// from the fields servers use to say it.
///
/// - `429 Too Many Requests` or `503 Service Unavailable` with `Retry-After`
///   (RFC 9110 §10.2.3: seconds or an HTTP date);
/// - the IETF `RateLimit` field (draft-ietf-httpapi-ratelimit-headers:
///   `"default";r=0;t=30`, and the earlier `limit=100, remaining=0, reset=30`),
///   or `RateLimit-Remaining` with `RateLimit-Reset`;
/// - the common `X-RateLimit-Remaining` with `X-RateLimit-Reset` (seconds
///   from now, or a Unix time as GitHub sends it).
///
/// A quota with requests remaining says nothing: only an exhausted one
/// (`remaining` 0) or a refusal pauses the key.
public enum RateLimitAnnouncement {
    /// Whether `response` can announce anything: a 429 or 503, or a field
    /// whose name begins `ratelimit` or `x-ratelimit`. A cheap test before
    /// ``pause(in:now:)`` reads the clock and parses.
    static func mayAnnounce(_ response: HTTPResponse) -> Bool {
        let status = response.status.code
        if status == 429 || status == 503 { return true }
        return response.headerFields.contains { field in
            // The first byte rules out almost every field before any prefix test.
            let name = field.name.canonicalName
            switch name.utf8.first {
            case UInt8(ascii: "r"): return name.hasPrefix("ratelimit")
            case UInt8(ascii: "x"): return name.hasPrefix("x-ratelimit")
            default: return false
            }
        }
    }

    /// The quiet `response` asks for, at `now`; `nil` when it asks for none.
    public static func pause(in response: HTTPResponse, now: Date) -> Duration? {
        let fields = response.headerFields
        let status = response.status.code
        if status == 429 || status == 503, let value = fields[.retryAfter],
            let delay = RetryAfter.delay(from: value, now: now)
        {
            return delay
        }
        if let value = value(fields, "ratelimit"), let reset = exhaustedReset(structured: value) {
            return reset
        }
        for prefix in ["ratelimit-", "x-ratelimit-"] {
            guard let left = value(fields, prefix + "remaining").flatMap({ Int($0.trimmingSpaces) }),
                left <= 0,
                let reset = value(fields, prefix + "reset").flatMap({ Double($0.trimmingSpaces) }), reset >= 0
            else { continue }
            return seconds(reset, now: now)
        }
        // A refusal with no word on when: a second, so every caller backs off.
        return status == 429 ? .seconds(1) : nil
    }

    /// The first value of the field named `name` (lowercase).
    private static func value(_ fields: HTTPFields, _ name: String) -> String? {
        fields.first { $0.name.canonicalName == name }?.value
    }

    /// The reset of an exhausted quota in a `RateLimit` field, in either
    /// draft's form; `nil` when requests remain or the field says neither.
    static func exhaustedReset(structured value: String) -> Duration? {
        var remaining: Double?
        var reset: Double?
        // Items by ',' and parameters by ';': `"default";r=0;t=30` or `limit=10, remaining=0, reset=5`.
        for item in value.split(separator: ",") {
            for parameter in item.split(separator: ";") {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces }
                guard pair.count == 2, let number = Double(pair[1]) else { continue }
                switch pair[0].lowercased() {
                case "r", "remaining": remaining = min(remaining ?? number, number)
                case "t", "reset": reset = max(reset ?? number, number)
                default: continue
                }
            }
        }
        guard let remaining, remaining <= 0, let reset, reset >= 0 else { return nil }
        return .milliseconds(Int64(reset * 1000))
    }

    /// `value` seconds from now, or — past 2001 as a Unix time — until then.
    private static func seconds(_ value: Double, now: Date) -> Duration {
        let delta = value > 1_000_000_000 ? value - now.timeIntervalSince1970 : value
        return .milliseconds(Int64(max(0, delta) * 1000))
    }
}
