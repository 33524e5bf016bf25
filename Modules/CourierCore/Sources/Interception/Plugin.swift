public import HTTPTypes

/// Four fixed hooks for cross-cutting concerns (logging, activity indicators,
/// header decoration), every one optional.
///
/// Plugins observe and decorate; control flow (retry, short-circuit, replay)
/// belongs to ``Interceptor``s. The hooks, in the order they run:
/// 1. ``prepare(_:context:)``: per attempt, in plugin order, may change the
///    request head or throw to veto the attempt;
/// 2. ``willSend(_:context:)``: per attempt, just before the transport;
/// 3. ``didReceive(_:request:context:)``: per attempt, with what the transport
///    returned, before validation. Every `willSend` is matched by exactly one
///    `didReceive`, so counters stay balanced across retries and failures;
/// 4. ``process(_:context:)``: once per pass through the pipeline, on every
///    path (success, failure, veto, cancellation, build failure), after
///    retries and validation and before decoding; may replace the result. A
///    call has one pass unless a response handler runs it again; each replay
///    is a pass of its own with ``CallContext/replay`` counting up, so
///    `process` sees every result that a response handler will see. A
///    replacement response is validated like any other before it is decoded.
///
/// Plugins come from three places, and their hooks run in this order: the
/// client's (``APIClient/Configuration/plugins``), the endpoint's
/// (``EndpointSpec/plugins``), then those passed to one call
/// (``APIClient/send(_:plugins:progress:)``).
///
/// An error `prepare` throws names the plugin in ``CourierError/thrownBy``.
///
/// Every plugin is an ``EventMonitor`` too: implement
/// ``EventMonitor/callEvent(_:)`` to see the call's cache lookups, policy
/// decisions, attempts with their phase timings, redirects, retries and
/// refreshes as they happen.
///
/// `prepare` runs per attempt, after the response cache and coalescing have
/// decided whose the call's response is: a plugin says in
/// ``CredentialDeclaring/credentialIdentity(for:)`` what it will add. The
/// default, ``CredentialIdentity/undeclared``, keeps every call the plugin
/// takes part in out of the cache and out of coalescing; a plugin that only
/// observes, or adds no credential, says ``CredentialIdentity/none``.
public protocol Plugin: CredentialDeclaring, EventMonitor {
    /// Changes the request head before it is sent; throwing vetoes the attempt.
    /// - Throws: Stops the call; use ``CourierError/vetoed(_:)`` to say why.
    func prepare(_ request: HTTPRequest, context: CallContext) async throws -> HTTPRequest
    /// Observes the request head about to be sent.
    func willSend(_ request: HTTPRequest, context: CallContext) async
    /// Observes the transport's result for the head that was sent.
    func didReceive(_ result: Result<RawResponse, CourierError>, request: HTTPRequest, context: CallContext)
        async
    /// Changes the pass's result before decoding.
    func process(_ result: Result<RawResponse, CourierError>, context: CallContext) async
        -> Result<RawResponse, CourierError>
}

extension Plugin {
    /// Returns the request unchanged: a plugin that only observes need not
    /// write this hook.
    public func prepare(_ request: HTTPRequest, context: CallContext) async throws -> HTTPRequest { request }
    /// Does nothing: implement it to see each attempt's head just before the
    /// transport sends it.
    public func willSend(_ request: HTTPRequest, context: CallContext) async {}
    /// Does nothing: implement it to see what the transport returned for
    /// each attempt (one call for every `willSend`).
    public func didReceive(
        _ result: Result<RawResponse, CourierError>, request: HTTPRequest, context: CallContext
    )
        async
    {}
    /// Returns the result unchanged: implement it to replace a pass's
    /// result before decoding.
    public func process(_ result: Result<RawResponse, CourierError>, context: CallContext) async
        -> Result<RawResponse, CourierError>
    { result }
}

/// Plugins' `process`, the one loop that runs it: in order, each plugin
/// sees the result the one before returned.
package enum PluginProcessing {
    /// Replaces `outcome` with what every plugin's `process` made of it
    /// (in place: a response is not copied in and out).
    package nonisolated(nonsending) static func run(
        _ plugins: [any Plugin], _ outcome: inout Result<RawResponse, CourierError>, _ context: CallContext
    ) async {
        for plugin in plugins { outcome = await plugin.process(outcome, context: context) }
    }
}
