// What the libraries' unit tests share: fixtures, a client over a stub,
// counters, and HeldTransport. A target of the package, never a product.
import CourierCodable
@_spi(Locking) package import CourierCore
package import CourierTesting
package import Foundation
package import HTTPTypes
import Synchronization

package struct User: Codable, Sendable, Equatable {
    package let id: Int
    package let name: String

    package init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}

extension Node {
    package static let api = Node("api", baseURL: "https://api.example.com/v1")
    package static let enveloped = Node(
        "enveloped", baseURL: "https://api.example.com/v1", envelope: .standard)
}

/// A client over a stub, with a test clock that advances on every sleep.
package func makeClient(
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
package final class EventLog: Sendable {
    private let storage = Locked<[String]>([])

    package init() {}

    package func append(_ event: String) { storage.withLock { $0.append(event) } }
    package var events: [String] { storage.withLock { $0 } }
}

/// Counts things across tasks.
package final class Counter: Sendable {
    private let storage = Locked(0)

    package init() {}

    @discardableResult
    package func increment() -> Int {
        storage.withLock { value in
            value += 1
            return value
        }
    }

    package var value: Int { storage.withLock { $0 } }
}

/// Sends through the completion-handler API and returns every result the
/// handler received once the call's task has finished.
package func completionResults<R: Sendable>(
    _ client: APIClient, _ endpoint: Endpoint<R>, cancelImmediately: Bool = false
) async -> [Result<R, CourierError>] {
    let results = Locked<[Result<R, CourierError>]>([])
    let call = client.send(endpoint) { result in results.withLock { $0.append(result) } }
    if cancelImmediately { call.cancel() }
    await call.wait()
    return results.withLock { $0 }
}

/// A temporary directory removed when the value is dropped.
package final class TemporaryDirectory: Sendable {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    package func file(_ name: String, contents: [UInt8]) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(contents).write(to: file)
        return file
    }
}

extension Result {
    package var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Sends and returns the error, failing the test when the call succeeds.
package func expectFailure<R>(_ client: APIClient, _ endpoint: Endpoint<R>) async -> CourierError? {
    do {
        _ = try await client.send(endpoint)
        return nil
    } catch {
        return error
    }
}

extension HTTPField.Name {
    /// Header names the tests add; the literals are valid tokens.
    package static let xChain = custom("X-Chain")
    package static let xPrepared = custom("X-Prepared")

    private static func custom(_ name: String) -> HTTPField.Name {
        guard let parsed = HTTPField.Name(name) else { preconditionFailure("invalid header name \(name)") }
        return parsed
    }
}
