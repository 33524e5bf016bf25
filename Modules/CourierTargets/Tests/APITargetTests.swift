import CourierCore
import CourierTargets
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

enum GitHub: APITarget {
    case user(String)
    case createIssue(title: String)

    var node: Node { Node("github", baseURL: "https://api.github.example") }
    var route: Route {
        switch self {
        case .user(let name): .get("users/\(name)")
        case .createIssue: .post("issues")
        }
    }
    var content: Content {
        switch self {
        case .user: .none
        case .createIssue(let title): .json(["title": .string(title)])
        }
    }
}

/// A Moya-style target maps to an endpoint sent raw or decoded at the call site.
struct APITargetTests {
    @Test func targetsMapToEndpointsAndDecodeAtTheCallSite() async throws {
        let recorder = RecordingTransport(StubTransport.immediate(.json(#"{"id":5,"name":"octocat"}"#)))
        let client = makeClient(recorder)
        let raw = try await client.send(GitHub.user("octo cat").endpoint)
        #expect(raw.statusCode == 200)
        let user = try await client.send(GitHub.user("octocat").endpoint(decoding: User.self))
        #expect(user.name == "octocat")
        _ = try await client.send(GitHub.createIssue(title: "Bug").endpoint)
        #expect(recorder.records.map(\.head.path) == ["/users/octo%20cat", "/users/octocat", "/issues"])
        #expect(recorder.records.last?.bodyText == #"{"title":"Bug"}"#)
    }
}
