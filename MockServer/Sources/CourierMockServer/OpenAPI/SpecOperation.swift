import Foundation

/// One operation of the document: a method on a path template, with what
/// it takes and what it answers.
struct SpecOperation: Sendable {
    /// The methods a path item may hold, lowercased as the document writes them.
    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// The method, lowercased.
    let method: String
    /// The path template, e.g. `/pets/{id}`.
    let template: String
    /// Where the operation object is.
    let location: SpecLocation
    /// `operationId`, when the document gives one.
    let operationID: String?
    /// The path item's and the operation's parameters, the operation's
    /// winning where both name one (by name and location).
    let parameters: [SpecParameter]
    /// `requestBody`, dereferenced, and where it is.
    let requestBody: (value: [String: JSONValue], location: SpecLocation)?
    /// `responses`, and where they are.
    let responses: (value: [String: JSONValue], location: SpecLocation)
    /// The security requirements in force: the operation's, else the
    /// document's; empty when none (or `security: []`).
    let security: [[String: JSONValue]]
    /// The template's segments, each literal text and parameter names in turn.
    private let segments: [[Piece]]
    /// How many segments are all literal: the more, the earlier it is tried.
    let literalWeight: Int

    private enum Piece: Sendable {
        case literal(String)
        case parameter(String)
    }

    /// A name for messages and the journal: the `operationId`, else `GET /pets/{id}`.
    var displayName: String { operationID ?? "\(method.uppercased()) \(template)" }

    init(
        method: String, template: String, operation: JSONValue, pathItem: [String: JSONValue],
        location: SpecLocation, globalSecurity: JSONValue?, files: SpecFiles
    ) throws(SpecError) {
        let operationLocation = location.appending(method)
        let (resolved, resolvedLocation) = try files.dereferenced(operation, at: operationLocation)
        guard case .object(let object) = resolved else {
            throw SpecError(
                file: location.file.lastPathComponent, pointer: operationLocation.pointer,
                message: "an operation is an object")
        }
        self.method = method
        self.template = template
        self.location = resolvedLocation
        if case .string(let identifier)? = object["operationId"] {
            operationID = identifier
        } else {
            operationID = nil
        }
        var parameters: [SpecParameter] = []
        for (source, sourceLocation) in [
            (pathItem["parameters"], location.appending("parameters")),
            (object["parameters"], resolvedLocation.appending("parameters")),
        ] {
            guard case .array(let list)? = source else { continue }
            for (index, entry) in list.enumerated() {
                let parameter = try SpecParameter(
                    entry, at: sourceLocation.appending(String(index)), files: files)
                parameters.removeAll { $0.name == parameter.name && $0.location == parameter.location }
                parameters.append(parameter)
            }
        }
        self.parameters = parameters
        if let body = object["requestBody"] {
            let (value, bodyLocation) = try files.dereferenced(
                body, at: resolvedLocation.appending("requestBody"))
            if case .object(let body) = value {
                requestBody = (body, bodyLocation)
            } else {
                requestBody = nil
            }
        } else {
            requestBody = nil
        }
        if case .object(let answers)? = object["responses"] {
            responses = (answers, resolvedLocation.appending("responses"))
        } else {
            responses = ([:], resolvedLocation.appending("responses"))
        }
        let requirements = object["security"] ?? globalSecurity
        if case .array(let list)? = requirements {
            security = list.compactMap { if case .object(let requirement) = $0 { requirement } else { nil } }
        } else {
            security = []
        }
        segments = template.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(
            Self.pieces)
        literalWeight =
            segments.filter { $0.allSatisfy { if case .literal = $0 { true } else { false } } }.count
    }

    /// A segment split at its `{name}` parameters.
    private static func pieces(_ segment: Substring) -> [Piece] {
        var pieces: [Piece] = []
        var rest = segment[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            if open > rest.startIndex { pieces.append(.literal(String(rest[..<open]))) }
            pieces.append(.parameter(String(rest[rest.index(after: open)..<close])))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty || pieces.isEmpty { pieces.append(.literal(String(rest))) }
        return pieces
    }

    /// The raw values of the path parameters when `path` fits the template.
    func match(_ path: String) -> [String: String]? {
        match(segmentsOf: Self.segments(of: path))
    }

    /// The path's segments, split once for every operation tried.
    static func segments(of path: String) -> ArraySlice<Substring> {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
    }

    /// ``match(_:)`` on a path already split by ``segments(of:)``.
    func match(segmentsOf parts: ArraySlice<Substring>) -> [String: String]? {
        guard parts.count == segments.count else { return nil }
        var values: [String: String] = [:]
        for (part, pieces) in zip(parts, segments) {
            guard Self.match(part[...], pieces[...], into: &values) else { return nil }
        }
        return values
    }

    /// One segment: literals in place, each parameter taking at least one
    /// character up to the next literal.
    private static func match(
        _ text: Substring, _ pieces: ArraySlice<Piece>, into values: inout [String: String]
    )
        -> Bool
    {
        guard let first = pieces.first else { return text.isEmpty }
        switch first {
        case .literal(let literal):
            guard text.hasPrefix(literal) else { return false }
            return match(text.dropFirst(literal.count), pieces.dropFirst(), into: &values)
        case .parameter(let name):
            let rest = pieces.dropFirst()
            guard case .literal(let next)? = rest.first else {
                guard !text.isEmpty, rest.isEmpty else { return false }
                values[name] = String(text)
                return true
            }
            // The parameter takes at least one character, then as few as fit.
            guard !text.isEmpty else { return false }
            var searchFrom = text.index(after: text.startIndex)
            while let found = text[searchFrom...].range(of: next) {
                var attempt = values
                attempt[name] = String(text[..<found.lowerBound])
                if match(text[found.lowerBound...], rest, into: &attempt) {
                    values = attempt
                    return true
                }
                guard found.lowerBound < text.endIndex else { break }
                searchFrom = text.index(after: found.lowerBound)
            }
            return false
        }
    }
}

/// One parameter: where it goes, whether it must, how it is written.
struct SpecParameter: Sendable {
    enum Location: String, Sendable {
        case path, query, header, cookie
    }

    let name: String
    let location: Location
    let required: Bool
    /// `style`, defaulted as the location says (`simple` for path and
    /// header, `form` for query and cookie).
    let style: String
    /// `explode`, defaulted as the style says (true for `form` only).
    let explode: Bool
    /// The schema (or the schema of the first `content` entry), and where it is.
    let schema: (value: JSONValue, location: SpecLocation)?
    /// `content` was used: the value is a serialized document (JSON), not a style.
    let isContent: Bool
    /// What the schema says the value is, read once when the document loads.
    let shape: ParameterDecoding.Shape

    init(_ value: JSONValue, at location: SpecLocation, files: SpecFiles) throws(SpecError) {
        let (resolved, resolvedLocation) = try files.dereferenced(value, at: location)
        guard case .object(let object) = resolved, case .string(let name)? = object["name"],
            case .string(let place)? = object["in"], let parsed = Location(rawValue: place)
        else {
            throw SpecError(
                file: location.file.lastPathComponent, pointer: location.pointer,
                message: "a parameter needs a name and in: path, query, header or cookie")
        }
        self.name = name
        self.location = parsed
        required = parsed == .path || object["required"] == .bool(true)
        let defaultStyle = parsed == .path || parsed == .header ? "simple" : "form"
        if case .string(let style)? = object["style"] {
            self.style = style
        } else {
            self.style = defaultStyle
        }
        if case .bool(let explode)? = object["explode"] {
            self.explode = explode
        } else {
            explode = style == "form"
        }
        if let schema = object["schema"] {
            self.schema = (schema, resolvedLocation.appending("schema"))
            isContent = false
        } else if case .object(let content)? = object["content"], let (type, media) = content.first,
            case .object(let mediaObject) = media, let schema = mediaObject["schema"]
        {
            self.schema = (schema, resolvedLocation.appending("content").appending(type).appending("schema"))
            isContent = true
        } else {
            schema = nil
            isContent = false
        }
        shape = ParameterDecoding.Shape(schema, files: files)
    }
}
