#if Configuration
    import Configuration
    import Foundation

    /// A `ConfigReader` with typed reads that tell "absent" from "present but
    /// wrong" — swift-configuration's `int(forKey:)` answers `nil` for both,
    /// and a typo would silently keep the default — and the path of its
    /// scope, so an error names the key as the caller's reader sees it.
    struct SettingsReader {
        let reader: ConfigReader
        let path: [String]

        init(_ reader: ConfigReader, path: [String] = []) {
            self.reader = reader
            self.path = path
        }

        /// The reader for the keys under `name`.
        func scoped(_ name: String) -> SettingsReader {
            SettingsReader(reader.scoped(to: ConfigKey(name)), path: path + [name])
        }

        /// The key's name from the caller's reader, for errors.
        func fullName(_ key: String) -> String {
            (path + [key]).joined(separator: ".")
        }

        /// Whether `key` has a value of any kind.
        func has(_ key: String) -> Bool {
            let name = ConfigKey(key)
            return reader.string(forKey: name) != nil || reader.int(forKey: name) != nil
                || reader.double(forKey: name) != nil || reader.bool(forKey: name) != nil
        }

        /// Text, `nil` when absent; `isSecret` keeps it out of access reports.
        func string(forKey key: ConfigKey, isSecret: Bool = false) -> String? {
            reader.string(forKey: key, isSecret: isSecret)
        }

        /// An integer in `range`; `nil` when absent. A text value that reads as
        /// an integer counts (an environment variable, a JSON string).
        func checkedInt(_ key: String, in range: ClosedRange<Int> = 0...Int.max, expected: String)
            throws(CourierConfigurationError) -> Int?
        {
            try checkedNumber(
                key, reader.int(forKey: ConfigKey(key)), in: range, expected: expected, parse: Int.init)
        }

        /// A duration given in whole milliseconds (AHC's convention: `connectionMs`).
        func checkedMilliseconds(_ key: String, allowsZero: Bool = false) throws(CourierConfigurationError)
            -> Duration?
        {
            let least = allowsZero ? 0 : 1
            return try checkedInt(
                key, in: least...Int.max,
                expected: "a whole number of milliseconds, \(least) or more"
            ).map { .milliseconds($0) }
        }

        /// A number in `range` (an integer counts); `nil` when absent.
        func checkedDouble(_ key: String, in range: ClosedRange<Double>, expected: String)
            throws(CourierConfigurationError) -> Double?
        {
            let typed =
                reader.double(forKey: ConfigKey(key)) ?? reader.int(forKey: ConfigKey(key)).map(Double.init)
            return try checkedNumber(key, typed, in: range, expected: expected, parse: Double.init)
        }

        /// `typed` when the provider had a number, else the key's text parsed;
        /// checked against `range`.
        private func checkedNumber<Number: Comparable>(
            _ key: String, _ typed: Number?, in range: ClosedRange<Number>, expected: String,
            parse: (String) -> Number?
        ) throws(CourierConfigurationError) -> Number? {
            let value: Number
            if let typed {
                value = typed
            } else if let text = string(forKey: ConfigKey(key)) {
                guard let number = parse(text.trimmingCharacters(in: .whitespaces)) else {
                    throw CourierConfigurationError(key: fullName(key), found: text, expected: expected)
                }
                value = number
            } else {
                return nil
            }
            guard range.contains(value) else {
                throw CourierConfigurationError(key: fullName(key), found: "\(value)", expected: expected)
            }
            return value
        }

        /// `true` or `false` (also `1`/`0`, `yes`/`no` as text); `nil` when absent.
        func checkedBool(_ key: String) throws(CourierConfigurationError) -> Bool? {
            if let flag = reader.bool(forKey: ConfigKey(key)) { return flag }
            guard let text = string(forKey: ConfigKey(key)) else { return nil }
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default:
                throw CourierConfigurationError(key: fullName(key), found: text, expected: "true or false")
            }
        }

        /// One of `choices`, compared without case; `nil` when absent.
        func checkedChoice(_ key: String, _ choices: [String]) throws(CourierConfigurationError) -> String? {
            guard let text = string(forKey: ConfigKey(key)) else { return nil }
            guard let choice = choices.first(where: { $0.lowercased() == text.lowercased() }) else {
                throw CourierConfigurationError(
                    key: fullName(key), found: text, expected: "one of " + choices.joined(separator: ", "))
            }
            return choice
        }

        /// A list of text values (an array, or comma-separated text); `nil` when absent.
        func checkedStrings(_ key: String) -> [String]? {
            if let list = reader.stringArray(forKey: ConfigKey(key)) { return list }
            guard let text = string(forKey: ConfigKey(key)) else { return nil }
            return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
        }

        /// A list of integers in `range` (an array, or comma-separated text); `nil` when absent.
        func checkedInts(_ key: String, in range: ClosedRange<Int>, expected: String)
            throws(CourierConfigurationError) -> [Int]?
        {
            if let list = reader.intArray(forKey: ConfigKey(key)) {
                if let wrong = list.first(where: { !range.contains($0) }) {
                    throw CourierConfigurationError(
                        key: fullName(key), found: String(wrong), expected: expected)
                }
                return list
            }
            guard let texts = checkedStrings(key) else { return nil }
            var list: [Int] = []
            for text in texts {
                guard let number = Int(text), range.contains(number) else {
                    throw CourierConfigurationError(key: fullName(key), found: text, expected: expected)
                }
                list.append(number)
            }
            return list
        }

        /// `host:address` pairs (libcurl's and async-http-client's override
        /// form: `api.example.com:127.0.0.1`); `nil` when absent.
        func checkedHostOverrides(_ key: String) throws(CourierConfigurationError) -> [String: String]? {
            guard let entries = checkedStrings(key) else { return nil }
            var overrides: [String: String] = [:]
            for entry in entries {
                guard let colon = entry.firstIndex(of: ":") else {
                    throw CourierConfigurationError(
                        key: fullName(key), found: entry, expected: "host:address pairs, comma-separated")
                }
                let host = entry[..<colon].trimmingCharacters(in: .whitespaces)
                let address = entry[entry.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                guard !host.isEmpty, !address.isEmpty else {
                    throw CourierConfigurationError(
                        key: fullName(key), found: entry, expected: "host:address pairs, comma-separated")
                }
                overrides[host] = address
            }
            return overrides
        }
    }

    /// A setting read from a `ConfigReader` key by key (`apply`), all or
    /// nothing (``readAll(_:)``): the one place every `read(from:)` goes through.
    protocol SettingsApplying {
        /// Changes what the keys under `settings` say; may stop half-way on a wrong value.
        mutating func apply(_ settings: SettingsReader) throws(CourierConfigurationError)
    }

    extension SettingsApplying {
        /// Applies the keys of `configReader`, or — when one is present but
        /// unusable — changes nothing and throws.
        mutating func readAll(_ configReader: ConfigReader) throws(CourierConfigurationError) {
            var copy = self
            try copy.apply(SettingsReader(configReader))
            self = copy
        }
    }
#endif
