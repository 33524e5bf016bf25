import Foundation

/// An OpenAPI 3.0 or 3.1 document, read for serving and validating: its
/// operations with their path templates, parameters, bodies, responses and
/// security, and the files its schemas live in.
public struct OpenAPISpec: Sendable {
    /// The document and every file its `$ref`s reach.
    public let files: SpecFiles
    /// The JSON Schema its schemas speak.
    public let dialect: SchemaDialect
    /// Every operation, most literal path first (so `/pets/mine` wins over `/pets/{id}`).
    let operations: [SpecOperation]
    /// The path prefixes of the document's `servers` (`/v2` for
    /// `https://api.example.com/v2`): a request may carry one or not.
    let basePaths: [String]
    /// `components.securitySchemes`, dereferenced.
    let securitySchemes: [String: JSONValue]

    /// Reads the document at `url` (YAML or JSON) and the files it refers to.
    /// - Throws: ``SpecError`` for an unreadable file, a version other than
    ///   3.0.x or 3.1.x, or an operation that cannot be read.
    public init(contentsOf url: URL) throws(SpecError) {
        try self.init(files: SpecFiles(root: url))
    }

    /// The document in `files`.
    public init(files: SpecFiles) throws(SpecError) {
        self.files = files
        let root = SpecLocation(file: files.root, pointer: "")
        guard case .object(let document) = files.document else {
            throw SpecError(
                file: files.root.lastPathComponent, pointer: "",
                message: "not an OpenAPI document (not an object)")
        }
        switch document["openapi"] {
        case .string(let version) where version.hasPrefix("3.0"): dialect = .openAPI30
        case .string(let version) where version.hasPrefix("3.1"): dialect = .openAPI31
        case let other:
            throw SpecError(
                file: files.root.lastPathComponent, pointer: "/openapi",
                message:
                    "courier-mock reads OpenAPI 3.0 and 3.1 documents; this one says \(other.map(\.description) ?? "nothing")"
            )
        }
        var bases: [String] = []
        if case .array(let servers)? = document["servers"] {
            for case .object(let server) in servers {
                guard case .string(let url)? = server["url"] else { continue }
                let path = Self.serverPath(url)
                if !path.isEmpty, path != "/" {
                    bases.append(path.hasSuffix("/") ? String(path.dropLast()) : path)
                }
            }
        }
        basePaths = bases
        var schemes: [String: JSONValue] = [:]
        if case .object(let components)? = document["components"],
            case .object(let declared)? = components["securitySchemes"]
        {
            let location = root.appending("components").appending("securitySchemes")
            for (name, scheme) in declared {
                schemes[name] = try files.dereferenced(scheme, at: location.appending(name)).0
            }
        }
        securitySchemes = schemes
        var operations: [SpecOperation] = []
        if case .object(let paths)? = document["paths"] {
            for (template, item) in paths.sorted(by: { $0.key < $1.key }) {
                let itemLocation = root.appending("paths").appending(template)
                let (resolvedItem, resolvedLocation) = try files.dereferenced(item, at: itemLocation)
                guard case .object(let pathItem) = resolvedItem else { continue }
                for method in SpecOperation.methods {
                    guard let operation = pathItem[method] else { continue }
                    operations.append(
                        try SpecOperation(
                            method: method, template: template, operation: operation, pathItem: pathItem,
                            location: resolvedLocation, globalSecurity: document["security"], files: files))
                }
            }
        }
        self.operations = operations.sorted { $0.literalWeight > $1.literalWeight }
    }

    /// The path part of a server URL, its variables (`{version}`) left as written.
    private static func serverPath(_ url: String) -> String {
        if url.hasPrefix("/") { return url }
        guard let scheme = url.range(of: "://") else { return "" }
        let rest = url[scheme.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return "" }
        return String(rest[slash...])
    }

    /// What the document says about a request to `method` `path`.
    enum Route {
        /// An operation, with the path parameters' raw (percent-encoded) values.
        case operation(SpecOperation, pathValues: [String: String])
        /// The path is documented, the method is not: these are.
        case methodNotAllowed(allowed: [String])
        /// The document does not have this path.
        case unknown
    }

    /// The operation for `method` and `path` (a server's base path is
    /// optional in the request).
    func route(method: String, path: String) -> Route {
        var candidates = [path]
        for base in basePaths where path == base || path.hasPrefix(base + "/") {
            candidates.append(path == base ? "/" : String(path.dropFirst(base.count)))
        }
        let lowered = method.lowercased()
        var allowed: [String] = []
        // HEAD is GET without content (RFC 9110 §9.3.2) where the document has no HEAD of its own.
        var get: (SpecOperation, [String: String])?
        for candidate in candidates {
            let parts = SpecOperation.segments(of: candidate)
            for operation in operations {
                guard let values = operation.match(segmentsOf: parts) else { continue }
                if operation.method == lowered { return .operation(operation, pathValues: values) }
                if operation.method == "get", get == nil { get = (operation, values) }
                allowed.append(operation.method.uppercased())
            }
        }
        if lowered == "head", let (operation, values) = get {
            return .operation(operation, pathValues: values)
        }
        if get != nil { allowed.append("HEAD") }
        return allowed.isEmpty ? .unknown : .methodNotAllowed(allowed: Array(Set(allowed)).sorted())
    }
}
