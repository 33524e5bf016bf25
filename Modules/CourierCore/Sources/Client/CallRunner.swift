import HTTPTypes
import Synchronization

/// Runs one call through the pipeline: mapping, encoding, the interceptor
/// chains and attempt loop, `process`, decoding, and response handlers.
/// The order is documented on ``APIClient``.
struct CallRunner: Sendable {
    let client: APIClient
    let callID: UInt64
    let progress: (@Sendable (TransferProgress) -> Void)?

    var configuration: APIClient.Configuration { client.configuration }

    /// The outcome of one pass through the pipeline, before response handlers.
    struct Pass<Response: Sendable> {
        var result: Result<Response, CourierError>
        var response: RawResponse?
        var attempts: Int
        var context: CallContext
    }

    func run<Response>(_ endpoint: Endpoint<Response>) async -> Result<Reply<Response>, CourierError> {
        var endpoint = endpoint
        var replays = 0
        while true {
            let pass = await runOnce(endpoint)
            var result = pass.result
            var again: (Endpoint<Response>, Duration)?
            for handler in endpoint.responseHandlers {
                let context = ResponseContext(call: pass.context, response: pass.response, replays: replays)
                switch await handler.body(result, context) {
                case .deliver(let delivered): result = delivered
                case .retry(let delay): again = (endpoint, delay)
                case .resend(let changed, let delay): again = (changed, delay)
                }
                if again != nil { break }
            }
            guard let (next, delay) = again else {
                return result.map { Reply(model: $0, response: pass.response, attempts: pass.attempts) }
            }
            replays += 1
            guard replays <= configuration.maxReplays else {
                return .failure(
                    CourierError(
                        .retriesExhausted, stage: .responseInterception,
                        message: "response handlers asked to run the call again more than "
                            + "\(configuration.maxReplays) times",
                        response: pass.response, attempt: pass.attempts, underlying: result.failure))
            }
            do {
                try await configuration.clock.sleep(for: delay)
            } catch {
                return .failure(
                    ErrorMapping.cancelled(stage: .responseInterception, request: nil, attempt: 0))
            }
            endpoint = next
        }
    }

    private func runOnce<Response>(_ endpoint: Endpoint<Response>) async -> Pass<Response> {
        let environment = client.environment
        var context = Self.context(callID: callID, spec: endpoint.spec, environment: environment)
        let attempts = AttemptCounter()
        let memo = EnvelopeMemo()
        var spec = endpoint.spec
        var rawResult: Result<RawResponse, CourierError>
        var requestHead: HTTPRequest?
        do throws(CourierError) {
            spec = try await mapped(endpoint.spec)
            context = Self.context(callID: callID, spec: spec, environment: environment)
            let request = try await build(spec, context: context, environment: environment)
            requestHead = request.head
            rawResult = await AttemptRunner(
                call: self, spec: spec, context: context, attempts: attempts, memo: memo
            )
            .runChain(request)
        } catch {
            rawResult = .failure(error)
        }
        for plugin in configuration.plugins {
            rawResult = await plugin.process(rawResult, context: context)
        }
        let attemptCount = attempts.value
        switch rawResult {
        case .failure(let error):
            return Pass(
                result: .failure(error), response: error.response, attempts: attemptCount, context: context)
        case .success(let response):
            let input = DecodingInput(
                decoder: spec.decoder ?? configuration.decoder, envelope: spec.envelopeFormat,
                envelopeHead: memo.head(for: response.body), transformer: spec.transformer)
            do {
                let model = try endpoint.serializer.serialize(response, input)
                return Pass(
                    result: .success(model), response: response, attempts: attemptCount, context: context)
            } catch {
                var failure = ErrorMapping.decoding(error)
                failure.request = failure.request ?? requestHead
                failure.response = failure.response ?? response
                failure.attempt = attemptCount
                return Pass(
                    result: .failure(failure), response: response, attempts: attemptCount, context: context)
            }
        }
    }

    private func mapped(_ spec: EndpointSpec) async throws(CourierError) -> EndpointSpec {
        do {
            return try await configuration.endpointMapping.map(spec)
        } catch {
            throw ErrorMapping.wrap(
                error, code: .invalidRequest, stage: .build, what: "endpoint mapping failed")
        }
    }

    /// Parameter interception, then encoding.
    private func build(_ spec: EndpointSpec, context: CallContext, environment: ServerEnvironment)
        async throws(CourierError) -> OutgoingRequest
    {
        var spec = spec
        let interceptors = configuration.parameterInterceptors + spec.parameterInterceptors
        do {
            for interceptor in interceptors {
                spec.query = try await interceptor.intercept(spec.query, at: .query, context: context)
            }
            if var parameters = spec.content.parameters {
                for interceptor in interceptors {
                    parameters = try await interceptor.intercept(parameters, at: .body, context: context)
                }
                spec.content.parameters = parameters
            }
        } catch {
            throw ErrorMapping.wrap(
                error, code: .invalidRequest, stage: .build, what: "parameter interceptor failed")
        }
        let encoding = spec.parameterEncoding ?? configuration.parameterEncoding
        return try RequestBuilder(spec: spec, environment: environment, encoding: encoding).build()
    }

    private static func context(callID: UInt64, spec: EndpointSpec, environment: ServerEnvironment)
        -> CallContext
    {
        CallContext(
            callID: callID, name: spec.route.description, route: spec.route, node: spec.node,
            environment: environment, attempt: 0)
    }
}

/// Remembers the envelope head read during validation so decoding does not
/// read the same body twice. Array equality short-circuits on shared storage.
final class EnvelopeMemo: Sendable {
    private let stored = Mutex<(bytes: [UInt8], head: EnvelopeHead)?>(nil)

    func store(_ bytes: [UInt8], _ head: EnvelopeHead) { stored.withLock { $0 = (bytes, head) } }

    func head(for body: ResponseBody) -> EnvelopeHead? {
        guard let bytes = body.bytes else { return nil }
        return stored.withLock { value in value.flatMap { $0.bytes == bytes ? $0.head : nil } }
    }
}

extension Result {
    /// The error of a failure, `nil` for a success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// The attempt number the loop is on, readable after the chain returns.
final class AttemptCounter: Sendable {
    private let storage = Mutex(0)

    var value: Int {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
