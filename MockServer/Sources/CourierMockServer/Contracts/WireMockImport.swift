import Foundation

/// WireMock mapping files in courier-mock's vocabulary: the keys both share
/// pass as they are, a few are translated, and every other key is refused
/// with an error naming the file and the key — nothing is dropped silently.
///
/// | WireMock | courier-mock |
/// |---|---|
/// | `id`, `uuid`, `name` (first present) | `id` |
/// | `priority`, `scenarioName`, `requiredScenarioState`, `newScenarioState` | the same |
/// | `persistent`, `metadata`, `insertionIndex` | ignored (bookkeeping) |
/// | `request.method`, `url`, `urlPath`, `urlPathPattern`, `urlPathTemplate` | the same |
/// | `request.queryParameters`, `headers`: `equalTo`, `contains`, `matches`, `absent` | the same |
/// | … `equalTo` with `caseInsensitive: true` | `matches` `(?i)` and the escaped text |
/// | `request.basicAuthCredentials` | an `Authorization` header `equalTo` `Basic …` |
/// | `request.cookies` `equalTo` | a `Cookie` header that `contains` `name=value` |
/// | `bodyPatterns`: `equalToJson` (`ignoreExtraElements` → `containsJson`), `contains`, `equalTo` | the same |
/// | `response.status`, `headers`, `body`, `base64Body`, `jsonBody`, `bodyFileName`, `fixedDelayMilliseconds` | the same |
/// | `response.delayDistribution` `uniform` | the same |
/// | `response.fault` `CONNECTION_RESET_BY_PEER`, `EMPTY_RESPONSE`, `MALFORMED_RESPONSE_CHUNK`, `RANDOM_DATA_THEN_CLOSE` | `resetBeforeHeaders`, `closeBeforeHeaders`, `malformedChunk`, `garbageThenClose` |
/// | `response.chunkedDribbleDelay` | the `dribble` fault |
///
/// Refused, among others: response templating (`transformers`), proxying
/// (`proxyBaseUrl`), webhooks (`postServeActions`, `serveEventListeners`),
/// `statusMessage`, `urlPattern`, lognormal delays, XML and JSONPath body
/// patterns, `doesNotMatch`, `multipartPatterns`, host/port/scheme matching.
public enum WireMockImport {
    /// The stubs of every WireMock mapping file under `directory` — its
    /// `mappings/` folder when it has one (bodies in `__files/` beside it),
    /// otherwise the directory itself.
    /// - Throws: ``ContractError`` naming the file and the key refused.
    public static func load(directory: URL) throws(ContractError) -> [StubMapping] {
        var stubs: [StubMapping] = []
        for (relative, document) in try converted(directory: directory) {
            stubs += try ContractParser(file: relative, filesDirectory: filesDirectory(directory))
                .parseFile(document)
        }
        return stubs
    }

    /// Each WireMock mapping file under `directory` as a courier-mock
    /// contract document (`{"mappings": [...]}`), by its path relative to
    /// the mappings folder: for writing out as contract files.
    public static func converted(directory: URL) throws(ContractError) -> [(
        file: String, document: JSONValue
    )] {
        let base = mappingsDirectory(directory)
        let files = FileManager.default
        var paths: [String] = []
        if let walker = files.enumerator(atPath: base.path) {
            while let relative = walker.nextObject() as? String {
                if relative.hasSuffix(".json") { paths.append(relative) }
            }
        }
        guard !paths.isEmpty else {
            throw ContractError(
                file: directory.path, path: "$", message: "no WireMock mapping files (*.json)")
        }
        var documents: [(String, JSONValue)] = []
        for relative in paths.sorted() {
            guard let data = files.contents(atPath: base.appendingPathComponent(relative).path) else {
                throw ContractError(file: relative, path: "$", message: "cannot read the file")
            }
            let value: JSONValue
            do {
                value = try JSONValue.parse(Array(data))
            } catch {
                throw ContractError(file: relative, path: "$", message: "not valid JSON")
            }
            documents.append((relative, try convert(value, file: relative)))
        }
        return documents
    }

    /// One WireMock document (a mapping, or `{"mappings": [...]}`) converted.
    /// - Throws: ``ContractError`` naming the key refused.
    public static func convert(_ value: JSONValue, file: String) throws(ContractError) -> JSONValue {
        let converter = WireMockConverter(file: file)
        if case .object(let object) = value, case .array(let items)? = object["mappings"] {
            if let extra = object.keys.first(where: { $0 != "mappings" && $0 != "meta" }) {
                throw ContractError(file: file, path: "$.\(extra)", message: "is not a WireMock mappings key")
            }
            var mappings: [JSONValue] = []
            for (index, item) in items.enumerated() {
                mappings.append(try converter.mapping(item, path: "$.mappings[\(index)]"))
            }
            return .object(["mappings": .array(mappings)])
        }
        return .object(["mappings": .array([try converter.mapping(value, path: "$")])])
    }

    static func mappingsDirectory(_ directory: URL) -> URL {
        let nested = directory.appendingPathComponent("mappings")
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: nested.path, isDirectory: &isDirectory)
            && isDirectory.boolValue
            ? nested : directory
    }

    /// Where the bodies named by `bodyFileName` live: `__files/` in the WireMock root.
    public static func filesDirectory(_ directory: URL) -> URL { directory.appendingPathComponent("__files") }
}
