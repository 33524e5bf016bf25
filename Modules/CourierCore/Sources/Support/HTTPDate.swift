#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, and the two obsolete forms a
/// recipient must accept — RFC 850 and asctime — to the letter, and nothing
/// else.
///
/// A value in any other shape is not a date: a zone other than `GMT`, a
/// two-digit year outside the RFC 850 form, a missing comma, a doubled
/// space, a one-digit hour. A cache must read such an `Expires` as a time in
/// the past (RFC 9111 §5.3), which it can only do if it does not guess.
package enum HTTPDate {
    private static let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = [
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    ]

    /// Parses an HTTP date; `nil` when the text is not one of the three forms.
    package static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
        if parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","),
            days.contains(String(parts[0].dropLast())), parts[5] == "GMT",
            let day = digits(parts[1], count: 2), let month = months.firstIndex(of: parts[2]),
            let year = digits(parts[3], count: 4)
        {
            return date(year: year, month: month + 1, day: day, time: parts[4])
        }
        // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT" (two-digit year: 00–69 → 2000s).
        if parts.count == 4, parts[0].hasSuffix(","), longDays.contains(String(parts[0].dropLast())),
            parts[3] == "GMT"
        {
            let date2 = parts[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard date2.count == 3, let day = digits(date2[0], count: 2),
                let month = months.firstIndex(of: date2[1]), let short = digits(date2[2], count: 2)
            else { return nil }
            return date(
                year: short < 70 ? 2000 + short : 1900 + short, month: month + 1, day: day, time: parts[2])
        }
        // asctime: "Sun Nov  6 08:49:37 1994" (a one-digit day after two spaces).
        var fields = parts
        if fields.count == 6, fields[2].isEmpty {
            fields.remove(at: 2)
        } else if fields.count == 5 {
            guard fields[2].count == 2 else { return nil }
        } else {
            return nil
        }
        guard days.contains(fields[0]), let month = months.firstIndex(of: fields[1]),
            let day = digits(fields[2], count: parts.count == 6 ? 1 : 2),
            let year = digits(fields[4], count: 4)
        else { return nil }
        return date(year: year, month: month + 1, day: day, time: fields[3])
    }

    /// Formats a date as IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
    package static func format(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondsOfDay = total - days * 86_400
        let (year, month, day) = civilFromDays(days)
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(day)) \(months[month - 1]) \(year) "
            + "\(two(secondsOfDay / 3600)):\(two(secondsOfDay % 3600 / 60)):\(two(secondsOfDay % 60)) GMT"
    }

    /// `count` ASCII digits exactly, as a number.
    private static func digits(_ text: String, count: Int) -> Int? {
        guard text.utf8.count == count, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text)
    }

    /// The date of a day and a `hh:mm:ss` time of day, when both are in range.
    private static func date(year: Int, month: Int, day: Int, time: String) -> Date? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard clock.count == 3, let hour = digits(clock[0], count: 2),
            let minute = digits(clock[1], count: 2),
            let second = digits(clock[2], count: 2), (1...31).contains(day), (0...23).contains(hour),
            (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let seconds =
            daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
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
