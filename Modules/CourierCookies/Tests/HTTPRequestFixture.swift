import Foundation
import HTTPTypes

/// Requests from URLs, for the tests.
enum HTTPRequestFixture {
    static func get(_ url: String) -> HTTPRequest {
        guard let components = URLComponents(string: url), let host = components.host else {
            preconditionFailure("bad test URL \(url)")
        }
        let port = components.port.map { ":\($0)" } ?? ""
        let query = components.percentEncodedQuery.map { "?\($0)" } ?? ""
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return HTTPRequest(
            method: .get, scheme: components.scheme, authority: host + port, path: path + query)
    }
}
