#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Parses the `Retry-After` header (RFC 9110 §10.2.3): delta-seconds or an HTTP-date.
public enum RetryAfter {
    /// The delay the header asks for, relative to `now`; `nil` when the value
    /// is neither a non-negative integer nor an HTTP date. A date in the past
    /// gives zero.
    public static func delay(from value: String, now: Date) -> Duration? {
        let text = value.trimmingSpaces
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            // Cap absurd values instead of overflowing: a day is more than any policy waits.
            guard let seconds = Int(text.prefix(9)) else { return nil }
            return .seconds(text.count > 9 ? 999_999_999 : seconds)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds <= 0 ? .zero : .milliseconds(Int64((seconds * 1000).rounded()))
    }
}

/// HTTP dates: IMF-fixdate, and the obsolete RFC 850 and asctime forms that
/// recipients must accept (RFC 9110 §5.6.7).
public enum HTTPDate {
    private static let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]

    /// Parses an HTTP date; `nil` when it is not one. Always GMT.
    public static func parse(_ text: String) -> Date? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map(String.init)
        var day: Int?
        var month: Int?
        var year: Int?
        var time: (Int, Int, Int)?
        for token in tokens {
            let lower = token.lowercased()
            if let index = months.firstIndex(of: lower) {
                month = index + 1
            } else if token.contains(":") {
                let parts = token.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 3 else { return nil }
                time = (parts[0], parts[1], parts[2])
            } else if let number = Int(token) {
                if token.count <= 2 && day == nil {
                    day = number
                } else if token.count == 2 {
                    // RFC 850 two-digit year: 00–69 → 2000s, 70–99 → 1900s.
                    year = number < 70 ? 2000 + number : 1900 + number
                } else {
                    year = number
                }
            }
        }
        guard let day, let month, let year, let (hour, minute, second) = time,
            (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
            (0...60).contains(second)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Formats a date as IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func format(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondsOfDay = total - days * 86_400
        let (year, month, day) = civilFromDays(days)
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(day)) \(months[month - 1].capitalized) \(year) "
            + "\(two(secondsOfDay / 3600)):\(two(secondsOfDay % 3600 / 60)):\(two(secondsOfDay % 60)) GMT"
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension String {
    fileprivate var capitalized: String { prefix(1).uppercased() + dropFirst() }
}
