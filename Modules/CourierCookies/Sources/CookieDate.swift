import Foundation

/// RFC 6265 §5.1.1's forgiving date parser for `Expires`: servers send
/// `Wed, 21 Oct 2026 07:28:00 GMT`, `Wednesday, 21-Oct-26 07:28:00 GMT`,
/// `Wed Oct 21 07:28:00 2026` and worse; the algorithm finds a time, a day,
/// a month and a year among the tokens, whatever their order and separators.
enum CookieDate {
    /// The date `text` names (always UTC), or `nil` when it names none.
    static func parse(_ text: Substring) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in tokens(text) {
            if time == nil, let found = self.time(token) {
                time = found
            } else if day == nil, let found = digits(token, 1...2) {
                day = found
            } else if month == nil, let found = self.month(token) {
                month = found
            } else if year == nil, let found = digits(token, 2...4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
            day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + time.hour * 3600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]

    /// The date's tokens: runs of non-delimiters (§5.1.1 `delimiter`).
    private static func tokens(_ text: Substring) -> [Substring.UTF8View.SubSequence] {
        text.utf8.split(whereSeparator: isDelimiter)
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// `count` leading digits (then anything but a digit), as a number.
    private static func digits(_ token: Substring.UTF8View.SubSequence, _ count: ClosedRange<Int>) -> Int? {
        let leading = token.prefix(while: isDigit)
        guard count.contains(leading.count) else { return nil }
        return leading.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `hms-time`: 1–2 digits, `:`, 1–2 digits, `:`, 1–2 digits, then no digit.
    private static func time(_ token: Substring.UTF8View.SubSequence) -> (Int, Int, Int)? {
        var parts: [Int] = []
        var rest = token[...]
        for index in 0..<3 {
            let number = rest.prefix(while: isDigit)
            guard (1...2).contains(number.count) else { return nil }
            parts.append(number.reduce(0) { $0 * 10 + Int($1 - 0x30) })
            rest = rest.dropFirst(number.count)
            if index < 2 {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                rest = rest.dropFirst()
            }
        }
        return (parts[0], parts[1], parts[2])
    }

    /// A month: the token's first three letters, any case.
    private static func month(_ token: Substring.UTF8View.SubSequence) -> Int? {
        guard token.count >= 3 else { return nil }
        let name = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        return months.firstIndex(of: name).map { $0 + 1 }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
    /// `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
