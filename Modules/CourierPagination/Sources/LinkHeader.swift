import CourierCore
import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads RFC 8288 `Link` fields: `<https://api/items?page=2>; rel="next", <…>; rel="last"`.
enum LinkHeader {
    /// `Link`.
    static let name = HTTPField.Name("Link") ?? .via

    /// The target of the first link whose `rel` names `relation` (rel holds
    /// space-separated types, compared case-insensitively), across every
    /// `Link` field and every link in each.
    static func target(rel relation: String, in fields: [String]) -> String? {
        for field in fields {
            for link in links(in: field) where link.relations.contains(relation.lowercased()) {
                return link.target
            }
        }
        return nil
    }

    /// The query parameters of a link target, decoded (`page=2&per_page=50`).
    static func query(of target: String) -> Parameters {
        let items = URLComponents(string: target)?.queryItems ?? []
        return Parameters(items.map { ($0.name, ParameterValue.string($0.value ?? "")) })
    }

    /// The links of one field value: a target in angle brackets, then
    /// `;`-separated parameters, links separated by commas outside brackets and quotes.
    static func links(in field: String) -> [(target: String, relations: Set<String>)] {
        var links: [(target: String, relations: Set<String>)] = []
        var rest = Substring(field)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let target = String(rest[rest.index(after: open)..<close])
            rest = rest[rest.index(after: close)...]
            // The parameters run to the next comma outside quotes.
            var inQuotes = false
            var end = rest.endIndex
            for index in rest.indices {
                let character = rest[index]
                if character == "\"" { inQuotes.toggle() }
                if character == ",", !inQuotes {
                    end = index
                    break
                }
            }
            let parameters = rest[..<end]
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
            var relations: Set<String> = []
            for parameter in parameters.split(separator: ";") {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, String(pair[0]).trimmingSpaces.lowercased() == "rel" else { continue }
                var value = Substring(String(pair[1]).trimmingSpaces)
                if value.count >= 2, value.first == "\"", value.last == "\"" {
                    value = value.dropFirst().dropLast()
                }
                relations.formUnion(value.lowercased().split(separator: " ").map(String.init))
            }
            links.append((target, relations))
        }
        return links
    }
}
