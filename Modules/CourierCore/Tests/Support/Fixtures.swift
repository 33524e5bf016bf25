import CourierCodable
@_spi(Locking) import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Synchronization

struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

extension Node {
    static let api = Node("api", baseURL: "https://api.example.com/v1")
    static let enveloped = Node("enveloped", baseURL: "https://api.example.com/v1", envelope: .standard)
}

/// A client over a stub, with a test clock that advances on every sleep.
func makeClient(
    _ transport: any Transport,
    retryPolicy: RetryPolicy = .never,
    clock: TestClock = TestClock(),
    plugins: [any Plugin] = [],
    callInterceptors: [any Interceptor] = [],
    attemptInterceptors: [any Interceptor] = [],
    parameterInterceptors: [ParameterInterceptor] = [],
    mapping: EndpointMapping = .default
) -> APIClient {
    APIClient(
        configuration: .init(
            transport: transport, decoder: .codable, callInterceptors: callInterceptors,
            attemptInterceptors: attemptInterceptors, parameterInterceptors: parameterInterceptors,
            plugins: plugins, endpointMapping: mapping, retryPolicy: retryPolicy, clock: clock))
}

/// A thread-safe list that tests append events to.
final class EventLog: Sendable {
    private let storage = Locked<[String]>([])

    func append(_ event: String) { storage.withLock { $0.append(event) } }
    var events: [String] { storage.withLock { $0 } }
}

/// Counts things across tasks.
final class Counter: Sendable {
    private let storage = Locked(0)

    @discardableResult
    func increment() -> Int {
        storage.withLock { value in
            value += 1
            return value
        }
    }

    var value: Int { storage.withLock { $0 } }
}

/// Sends through the completion-handler API and returns every result the
/// handler received once the call's task has finished.
func completionResults<R: Sendable>(
    _ client: APIClient, _ endpoint: Endpoint<R>, cancelImmediately: Bool = false
) async -> [Result<R, CourierError>] {
    let results = Locked<[Result<R, CourierError>]>([])
    let call = client.send(endpoint) { result in results.withLock { $0.append(result) } }
    if cancelImmediately { call.cancel() }
    await call.wait()
    return results.withLock { $0 }
}

/// A temporary directory removed when the value is dropped.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String, contents: [UInt8]) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(contents).write(to: file)
        return file
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Sends and returns the error, failing the test when the call succeeds.
func expectFailure<R>(_ client: APIClient, _ endpoint: Endpoint<R>) async -> CourierError? {
    do {
        _ = try await client.send(endpoint)
        return nil
    } catch {
        return error
    }
}

extension HTTPField.Name {
    /// Header names the tests add; the literals are valid tokens.
    static let xChain = custom("X-Chain")
    static let xPrepared = custom("X-Prepared")

    private static func custom(_ name: String) -> HTTPField.Name {
        guard let parsed = HTTPField.Name(name) else { preconditionFailure("invalid header name \(name)") }
        return parsed
    }
}
