import CourierCodable
import CourierCore
import CourierTesting
import Testing

/// `validation.json`: which statuses count as success, and typed error bodies.
struct ValidationContracts {
    struct ServerError: Decodable, Sendable, Equatable {
        let error: String
        let fields: [String]
    }

    @Test(arguments: ContractTransport.allCases)
    func customStatusSets(kind: ContractTransport) async throws {
        try await contract("validation: custom status sets", kind) {
            try await ContractServer.with("validation.json") { server in
                let client = makeClient(kind)
                var endpoint = Endpoint<User?>(.get("maybe"), on: server.node())
                let refused = await expectCourierError("404 by default") { try await client.send(endpoint) }
                check(
                    refused?.code == .status && refused?.response?.statusCode == 404,
                    "\(String(describing: refused))")
                endpoint.spec.validation = Validation(statusCodes: [200, 404])
                let missing = try await client.send(endpoint)
                check(missing == nil, "404 accepted as no user: \(String(describing: missing))")
                var exact = Endpoint<User>(.get("accepted"), on: server.node())
                exact.spec.validation = Validation(statusCodes: [200])
                let notExactly = await expectCourierError("202 outside [200]") {
                    try await client.send(exact)
                }
                check(notExactly?.code == .status, "\(String(describing: notExactly))")
                try await server.exchanges().expectNoUnmatched()
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func aTypedServerErrorFromA4xxBody(kind: ContractTransport) async throws {
        try await contract("validation: 4xx body decoded into a typed server error", kind) {
            try await ContractServer.with("validation.json") { server in
                let error = await expectCourierError("422") {
                    try await makeClient(kind).send(
                        Endpoint<User>(
                            .post("users"), on: server.node(envelope: nil), content: .json(["name": ""])))
                }
                check(
                    error?.code == .status && error?.response?.statusCode == 422,
                    "\(String(describing: error))")
                let details = try error?.decodeBody(ServerError.self, using: .codable)
                check(
                    details == ServerError(error: "invalid_name", fields: ["name"]),
                    "\(String(describing: details))")
            }
        }
    }
}
