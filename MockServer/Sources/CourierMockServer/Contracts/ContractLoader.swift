import Foundation

/// Loads every `*.json` contract file below a directory (except `__files/`).
public enum ContractLoader {
    /// The stubs of every contract file under `directory`, in file-name order.
    /// - Throws: ``ContractError`` naming the first bad file and JSON path.
    public static func load(directory: URL) throws(ContractError) -> [StubMapping] {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        guard files.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw ContractError(file: directory.path, path: "$", message: "no such contracts directory")
        }
        let base = directory.standardizedFileURL
        var paths: [String] = []
        if let walker = files.enumerator(atPath: base.path) {
            while let relative = walker.nextObject() as? String {
                if relative == "__files" || relative.hasPrefix("__files/") { continue }
                if relative.hasSuffix(".json") { paths.append(relative) }
            }
        }
        var stubs: [StubMapping] = []
        var seen: [String: String] = [:]
        for relative in paths.sorted() {
            guard let data = files.contents(atPath: base.appendingPathComponent(relative).path) else {
                throw ContractError(file: relative, path: "$", message: "cannot read the file")
            }
            for stub in try parse(
                Array(data), file: relative, filesDirectory: base.appendingPathComponent("__files"))
            {
                if let other = seen[stub.id] {
                    throw ContractError(
                        file: relative, path: "$", message: "stub id \"\(stub.id)\" is also used in \(other)")
                }
                seen[stub.id] = relative
                stubs.append(stub)
            }
        }
        return stubs
    }

    /// The stubs in one contract document.
    /// - Throws: ``ContractError`` for malformed JSON or a bad field.
    public static func parse(_ bytes: [UInt8], file: String, filesDirectory: URL? = nil) throws(ContractError)
        -> [StubMapping]
    {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw ContractError(file: file, path: "$", message: "not valid JSON: \(Self.reason(error))")
        }
        return try ContractParser(file: file, filesDirectory: filesDirectory).parseFile(value)
    }

    private static func reason(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying =
                (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}
