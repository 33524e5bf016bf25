import CourierCore
import CourierMockServer
import HTTPTypes
import Testing

/// A request to the mock server on loopback.
func request(
    _ server: MockServer, _ path: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:],
    body: RequestBody? = nil
) -> OutgoingRequest {
    OutgoingRequest(
        head: HTTPRequest(
            method: method, scheme: "http", authority: "127.0.0.1:\(server.port)", path: path,
            headerFields: headers),
        body: body)
}

/// Runs `body` and checks that it fails with a ``TransportError`` of `code`.
func expectTransportError<T>(
    _ code: TransportError.Code, _ what: String, _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("\(what) succeeded")
    } catch let error as TransportError {
        #expect(error.code == code, "\(what): \(error)")
    } catch {
        Issue.record("\(what): \(type(of: error)) \(error)")
    }
}
