import CourierCore
import CourierMockServer
import HTTPTypes

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
