import Foundation
import Yams

/// An OpenAPI document and every file its `$ref`s reach, each read once as a
/// ``JSONValue`` tree, and the lookup of a reference in them.
///
/// YAML is read with Yams under the YAML 1.2 core schema — the one JSON
/// shares, so `yes` stays a string and `2024-01-01` is not a timestamp — and
/// JSON as JSON. A reference is `#/json/pointer` within the same file,
/// `other.yaml#/json/pointer` or `other.yaml` relative to the file that holds
/// it (RFC 3986 resolution against that file's URL).
public struct SpecFiles: Sendable {
    /// The document the server was started with.
    public let root: URL
    /// Every file read, by its standardized URL.
    private(set) var files: [URL: JSONValue] = [:]

    /// Reads `root` and every file its references reach, transitively.
    /// - Throws: ``SpecError`` naming the file that cannot be read or parsed,
    ///   or the reference to a file that does not exist.
    public init(root: URL) throws(SpecError) {
        self.root = root.standardizedFileURL
        // Each file with the reference that reached it, for the error when it cannot be read.
        var pending: [(file: URL, reachedBy: (file: URL, reference: String)?)] = [(self.root, nil)]
        while let (file, reachedBy) = pending.popLast() {
            guard files[file] == nil else { continue }
            let value: JSONValue
            do {
                value = try Self.read(file)
            } catch {
                guard let reachedBy else { throw error }
                throw SpecError(
                    file: reachedBy.file.lastPathComponent, pointer: "",
                    message: "$ref \(reachedBy.reference): \(error.message)")
            }
            files[file] = value
            for reference in Self.references(in: value) {
                guard let target = Self.fileURL(of: reference, from: file) else { continue }
                if files[target] == nil { pending.append((target, (file, reference))) }
            }
        }
    }

    /// The whole root document.
    public var document: JSONValue { files[root] ?? .null }

    /// The value `reference` names, seen from `base`, with the location it
    /// was found at (the base for the references inside it).
    /// - Throws: ``SpecError`` when the file or the pointer's target is missing.
    func resolve(_ reference: String, from base: SpecLocation) throws(SpecError) -> (JSONValue, SpecLocation)
    {
        let hash = reference.firstIndex(of: "#")
        let filePart = hash.map { String(reference[..<$0]) } ?? reference
        let pointer = hash.map { String(reference[reference.index(after: $0)...]) } ?? ""
        let file = filePart.isEmpty ? base.file : Self.fileURL(of: reference, from: base.file)
        guard let file, let document = files[file] else {
            throw SpecError(
                file: base.file.lastPathComponent, pointer: base.pointer,
                message: "$ref \(reference): no such file")
        }
        let decoded =
            pointer.utf8.contains(UInt8(ascii: "%")) ? pointer.removingPercentEncoding ?? pointer : pointer
        guard let value = JSONPointer.value(at: decoded, in: document) else {
            throw SpecError(
                file: file.lastPathComponent, pointer: decoded,
                message: "$ref \(reference): nothing at this pointer")
        }
        return (value, SpecLocation(file: file, pointer: decoded))
    }

    /// Follows `$ref` until the value is not a reference object (at most 64
    /// steps: a cycle of references to references is an error, not a hang).
    func dereferenced(_ value: JSONValue, at location: SpecLocation) throws(SpecError) -> (
        JSONValue, SpecLocation
    ) {
        var value = value
        var location = location
        for _ in 0..<64 {
            guard case .object(let object) = value, case .string(let reference)? = object["$ref"] else {
                return (value, location)
            }
            (value, location) = try resolve(reference, from: location)
        }
        throw SpecError(
            file: location.file.lastPathComponent, pointer: location.pointer, message: "$ref cycle")
    }

    // MARK: Reading

    private static func read(_ file: URL) throws(SpecError) -> JSONValue {
        let bytes: Data
        do {
            // An empty file is not read: Foundation's file reading leaks a
            // 4 KiB buffer for one (found by scripts/fuzz openapi).
            let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
            bytes = size == 0 ? Data() : try Data(contentsOf: file)
        } catch {
            throw SpecError(
                file: file.lastPathComponent, pointer: "",
                message: "cannot read \(file.lastPathComponent): \(error.localizedDescription)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw SpecError(file: file.lastPathComponent, pointer: "", message: "not UTF-8 text")
        }
        if file.pathExtension.lowercased() == "json" {
            do {
                return try JSONValue.parse(Array(text.utf8))
            } catch {
                throw SpecError(file: file.lastPathComponent, pointer: "", message: "not JSON: \(error)")
            }
        }
        do {
            guard let node = try Yams.compose(yaml: text, coreSchema) else { return .null }
            return try json(node, file: file, path: "")
        } catch let error as SpecError {
            throw error
        } catch {
            throw SpecError(file: file.lastPathComponent, pointer: "", message: "not YAML: \(error)")
        }
    }

    /// YAML 1.2's core schema: the plain scalars that are null, booleans,
    /// integers and floats; anything else (and anything quoted) is a string.
    private static let coreSchema: Resolver = {
        do {
            return try Resolver.basic
                .appending(.null, "^(?:~|null|Null|NULL|)$")
                .appending(.bool, "^(?:true|True|TRUE|false|False|FALSE)$")
                .appending(.int, "^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
                .appending(
                    .float,
                    "^(?:[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$"
                )
        } catch {
            // The patterns above are constants: only a broken regex engine fails here.
            return .basic
        }
    }()

    private static func json(_ node: Node, file: URL, path: String) throws(SpecError) -> JSONValue {
        switch node {
        case .scalar(let scalar):
            switch Tag.Name(rawValue: node.tag.rawValue) {
            case .null: return .null
            case .bool: return .bool(scalar.string.lowercased() == "true")
            case .int:
                if let number = Int64(scalar.string) ?? parseRadix(scalar.string) { return .int(number) }
                return .double(Double(scalar.string) ?? 0)
            case .float:
                return .double(node.float ?? Double(scalar.string) ?? .nan)
            default: return .string(scalar.string)
            }
        case .mapping(let mapping):
            var object: [String: JSONValue] = [:]
            for (key, value) in mapping {
                let name = key.string ?? ""
                object[name] = try json(value, file: file, path: path + "/" + JSONPointer.escape(name))
            }
            return .object(object)
        case .sequence(let sequence):
            var array: [JSONValue] = []
            for (index, item) in sequence.enumerated() {
                array.append(try json(item, file: file, path: path + "/\(index)"))
            }
            return .array(array)
        case .alias:
            throw SpecError(
                file: file.lastPathComponent, pointer: path, message: "YAML aliases are not supported")
        }
    }

    private static func parseRadix(_ text: String) -> Int64? {
        if text.hasPrefix("0x") { return Int64(text.dropFirst(2), radix: 16) }
        if text.hasPrefix("0o") { return Int64(text.dropFirst(2), radix: 8) }
        return nil
    }

    /// Every `$ref` string in a tree.
    private static func references(in value: JSONValue) -> [String] {
        var found: [String] = []
        var stack = [value]
        while let next = stack.popLast() {
            switch next {
            case .object(let object):
                if case .string(let reference)? = object["$ref"] { found.append(reference) }
                stack.append(contentsOf: object.values)
            case .array(let items): stack.append(contentsOf: items)
            default: break
            }
        }
        return found
    }

    /// The file a reference points into, resolved against the file holding
    /// it; `nil` for a reference within the same file.
    static func fileURL(of reference: String, from base: URL) -> URL? {
        let filePart =
            reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard !filePart.isEmpty else { return nil }
        return URL(string: String(filePart), relativeTo: base)?.absoluteURL.standardizedFileURL
    }
}

/// Where a value sits in the spec: the file and the JSON pointer within it.
public struct SpecLocation: Sendable, Hashable {
    /// The file.
    public var file: URL
    /// The JSON pointer (RFC 6901) from the file's root, `""` for the root.
    public var pointer: String

    /// A location one key or index further down.
    func appending(_ token: String) -> SpecLocation {
        SpecLocation(file: file, pointer: pointer + "/" + JSONPointer.escape(token))
    }
}

/// An OpenAPI document that cannot be used: the file, where in it, and what
/// is wrong.
public struct SpecError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's name.
    public var file: String
    /// The JSON pointer within the file.
    public var pointer: String
    /// What is wrong.
    public var message: String

    /// `file#pointer: message`.
    public var description: String { "\(file)#\(pointer): \(message)" }
}

/// RFC 6901 JSON pointers over ``JSONValue``.
enum JSONPointer {
    /// The value at `pointer` (`""` is the whole value), `nil` when absent.
    static func value(at pointer: String, in root: JSONValue) -> JSONValue? {
        guard !pointer.isEmpty else { return root }
        guard pointer.hasPrefix("/") else { return nil }
        var current = root
        for raw in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let token = unescape(String(raw))
            switch current {
            case .object(let object):
                guard let next = object[token] else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(token), items.indices.contains(index) else { return nil }
                current = items[index]
            default: return nil
            }
        }
        return current
    }

    /// `~` and `/` in a token, escaped as `~0` and `~1`.
    static func escape(_ token: String) -> String {
        // Most tokens (property names, indices) have neither: no copies.
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return token
        }
        return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    static func unescape(_ token: String) -> String {
        guard token.utf8.contains(UInt8(ascii: "~")) else { return token }
        return token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }
}

extension SpecFiles {
    /// A document given as a value rather than a file (a schema built in
    /// code, a test case): its references are JSON pointers into it.
    public init(document: JSONValue, name: String) {
        root = URL(fileURLWithPath: "/" + name)
        files = [root: document]
    }
}
