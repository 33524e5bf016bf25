import CourierCore
import CourierMockServer
import CourierOpenAPI
import Foundation
import PetstoreOpenAPI
import Testing

/// The loop: the client swift-openapi-generator made from the Petstore
/// document (OpenAPI/Petstore/openapi.yaml), through CourierOpenAPI over
/// every transport, against courier-mock serving that same document —
/// every request valid, every answer decoded. Then the same client against
/// a document that drifted from it (drifted.yaml), where courier-mock names
/// each mismatch. courier-mock runs in-process here, on real sockets.
struct OpenAPIMockLoopContracts {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../OpenAPI/Petstore").standardizedFileURL

    static func petstore(_ kind: ContractTransport, _ server: MockServer) throws -> Client {
        let transport = CourierClientTransport(client: makeClient(kind))
        return Client(serverURL: try #require(URL(string: server.baseURL)), transport: transport)
    }

    static func configuration(_ document: String, strict: Bool) -> MockServer.Configuration {
        var configuration = MockServer.Configuration(strict: strict, builtinRoutes: false)
        configuration.openAPI = folder.appendingPathComponent(document)
        return configuration
    }

    @Test(arguments: ContractTransport.allCases)
    func theGeneratedClientSpeaksTheDocumentCourierMockServes(kind: ContractTransport) async throws {
        try await contract("openapi: a generated client against courier-mock serving its document", kind) {
            try await withMockServer(Self.configuration("openapi.yaml", strict: true)) { server in
                let petstore = try Self.petstore(kind, server)
                let pets = try await petstore.findPets(query: .init(tags: ["dog", "cat"], limit: 20)).ok.body
                    .json
                check(!pets.isEmpty, "findPets answered \(pets)")
                let added = try await petstore.addPet(body: .json(.init(name: "Rex", tag: "dog"))).ok.body
                    .json
                check(!added.value1.name.isEmpty, "addPet answered \(added)")
                let found = try await petstore.findPetById(path: .init(id: 42)).ok.body.json
                check(found.value2.id >= 1, "find pet by id answered \(found)")
                _ = try await petstore.deletePet(path: .init(id: 42)).noContent
                let entries = server.journal.entries
                check(
                    entries.map(\.operationID) == ["findPets", "addPet", "find pet by id", "deletePet"],
                    "operations: \(entries.map(\.operationID))")
                check(
                    entries.allSatisfy { $0.findings == nil }, "findings: \(entries.compactMap(\.findings))")
                check(
                    entries.first?.request.uri == "/pets?tags=dog&tags=cat&limit=20",
                    "\(entries.first?.request.uri ?? "")")
                // Strict: no finding, nothing unmatched.
                try server.verify()
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func aDriftedDocumentNamesEachMismatch(kind: ContractTransport) async throws {
        try await contract("openapi: each mismatch between a client and a drifted document is named", kind) {
            try await withMockServer(Self.configuration("drifted.yaml", strict: true)) { server in
                let petstore = try Self.petstore(kind, server)
                // Every call is refused with problem details, which this
                // client's document does not describe: what it makes of
                // them does not matter here, the journal does.
                _ = try? await petstore.findPets(query: .init(tags: ["dog"], limit: 20))
                _ = try? await petstore.addPet(body: .json(.init(name: "Doggie")))
                _ = try? await petstore.findPetById(path: .init(id: 42))
                _ = try? await petstore.deletePet(path: .init(id: 42))
                let entries = server.journal.entries
                check(entries.count == 4, "\(entries.count) requests")
                let named = entries.map { entry in
                    Set((entry.findings ?? []).map { "\($0.rule) \($0.pointer)" })
                }
                let expected: [Set<String>] = [
                    ["schema/maximum /query/limit", "parameter/missing /header/X-Client"],
                    ["schema/required /body/tag", "schema/maxLength /body/name"],
                    ["schema/format /path/id"],
                    ["security/missing /header/Authorization"],
                ]
                check(named == expected, "findings: \(named)")
                check(entries.map(\.status) == [400, 400, 400, 401], "statuses: \(entries.map(\.status))")
                check((try? server.verify()) == nil, "strict mode fails the run")
            }
        }
    }
}
