/// Reads a JSON object field by field, with errors that name the file and the
/// JSON path, and rejects unknown keys so that typos do not pass silently.
struct ContractReader {
    let file: String
    let path: String
    let object: [String: JSONValue]

    init(file: String, path: String, value: JSONValue, allowed: Set<String>) throws(ContractError) {
        guard case .object(let object) = value else {
            throw ContractError(
                file: file, path: path, message: "expected an object, found \(value.typeName)")
        }
        if let unknown = object.keys.filter({ !allowed.contains($0) }).sorted().first {
            let known = allowed.sorted().joined(separator: ", ")
            throw ContractError(
                file: file, path: "\(path).\(unknown)", message: "unknown key (known keys: \(known))")
        }
        self.file = file
        self.path = path
        self.object = object
    }

    func error(_ key: String?, _ message: String) -> ContractError {
        ContractError(file: file, path: key.map { "\(path).\($0)" } ?? path, message: message)
    }

    func has(_ key: String) -> Bool { object[key] != nil }

    func value(_ key: String) -> JSONValue? { object[key] }

    func child(_ key: String, allowed: Set<String>) throws(ContractError) -> ContractReader? {
        guard let value = object[key] else { return nil }
        return try ContractReader(file: file, path: "\(path).\(key)", value: value, allowed: allowed)
    }

    func string(_ key: String) throws(ContractError) -> String? {
        guard let value = object[key] else { return nil }
        guard case .string(let text) = value else {
            throw error(key, "expected a string, found \(value.typeName)")
        }
        return text
    }

    func requiredString(_ key: String) throws(ContractError) -> String {
        guard let text = try string(key) else { throw error(key, "is required") }
        return text
    }

    func int(_ key: String, in range: ClosedRange<Int64>? = nil) throws(ContractError) -> Int? {
        guard let value = object[key] else { return nil }
        guard case .int(let number) = value else {
            throw error(key, "expected an integer\(Self.describe(range)), found \(value.description)")
        }
        if let range, !range.contains(number) {
            throw error(key, "expected an integer\(Self.describe(range)), found \(number)")
        }
        return Int(number)
    }

    func bool(_ key: String) throws(ContractError) -> Bool? {
        guard let value = object[key] else { return nil }
        guard case .bool(let flag) = value else {
            throw error(key, "expected true or false, found \(value.typeName)")
        }
        return flag
    }

    func array(_ key: String) throws(ContractError) -> [JSONValue]? {
        guard let value = object[key] else { return nil }
        guard case .array(let items) = value else {
            throw error(key, "expected an array, found \(value.typeName)")
        }
        return items
    }

    /// An object whose values are read by `read`, with paths `key.name`.
    func map<T>(_ key: String, _ read: (String, JSONValue, String) throws(ContractError) -> T)
        throws(ContractError) -> [(String, T)]
    {
        guard let value = object[key] else { return [] }
        guard case .object(let entries) = value else {
            throw error(key, "expected an object, found \(value.typeName)")
        }
        var result: [(String, T)] = []
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            result.append((name, try read(name, entry, "\(path).\(key).\(name)")))
        }
        return result
    }

    private static func describe(_ range: ClosedRange<Int64>?) -> String {
        range.map { " from \($0.lowerBound) to \($0.upperBound)" } ?? ""
    }
}
