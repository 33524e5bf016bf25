/// A contract file that cannot be loaded: names the file, the JSON path and
/// what is wrong, e.g. `users.json: $.mappings[2].response.status: expected an
/// integer from 100 to 599, found "abc"`.
public struct ContractError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, relative to the contracts directory (or `<admin>` / `<code>`).
    public var file: String
    /// The JSON path, starting at `$`.
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, path: String, message: String) {
        self.file = file
        self.path = path
        self.message = message
    }

    /// `file: path: message`.
    public var description: String { "\(file): \(path): \(message)" }
}
