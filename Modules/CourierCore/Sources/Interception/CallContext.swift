/// What interceptors and plugins know about the call they are part of.
public struct CallContext: Sendable {
    /// What stays the same for the whole call, in one shared box (never
    /// written after it is made): a context is copied into every stage and
    /// attempt, and a copy then costs one reference instead of one per field.
    private let fixed: SharedFields<Fixed>

    /// A number unique to this call within the process, for correlating logs.
    public var callID: UInt64 { fixed.fields.callID }
    /// The route.
    public var route: Route { fixed.fields.route }
    /// The node the call goes to.
    public var node: Node { fixed.fields.node }
    /// The environment the base URL was chosen for.
    public var environment: ServerEnvironment { fixed.fields.environment }
    /// The attempt, from 1, for per-attempt interceptors and plugins; 0 in the
    /// per-call tier, which runs around all attempts. Numbers go on across
    /// every `next` a per-call interceptor makes and across replays.
    public internal(set) var attempt: Int
    /// Whether the endpoint wants its calls authenticated: `false` for one
    /// marked ``Endpoint/withoutAuthentication()``, which an
    /// `Authenticator` (and any interceptor of yours that signs) leaves alone.
    public var authenticates: Bool { fixed.fields.authenticates }
    /// Cancellation of the call from outside its task (``APIClient/cancelAll()``,
    /// a concurrency policy): an interceptor that waits for something of
    /// its own (a token refresh) stops waiting when it fires. `nil` in a
    /// context made by hand.
    public var cancellation: CallCancellation? { fixed.fields.cancellation }
    /// Which pass through the pipeline this is: 0 for the call's first, then
    /// 1, 2, … for each time a response handler ran the call again.
    public internal(set) var replay: Int
    /// Whether the call is part of an `Authenticator`'s refresh (made by a
    /// `CredentialProvider`'s `refresh`): it passes that authenticator
    /// unsigned. For logs, and for interceptors that sign requests of their own.
    public var isCredentialRefresh: Bool { fixed.fields.isCredentialRefresh }
    /// Whether a response cache started the call in the background, to
    /// refresh a stored response it answered with (`stale-while-revalidate`,
    /// or the `alsoNetwork` read modes): nobody awaits its result, so a
    /// plugin's ``Plugin/process(_:context:)`` is where its failure is seen.
    public var isBackgroundRefresh: Bool { fixed.fields.isBackgroundRefresh }
    /// What the client running the call shares; `nil` in a context made by hand.
    var services: ClientServices? { fixed.fields.services }
    /// The event monitors of the client making the call (none for a context
    /// made by hand): for a component that reports an event of the call.
    package var monitors: [any EventMonitor] { services?.configuration.monitors ?? [] }

    /// The fields that carry credentials in this call: the client's
    /// (``APIClient/Configuration/credentialFields``) and those its
    /// ``Redacting`` plugins hide. A component that shows header fields
    /// hides these too.
    public var credentialFields: CredentialFields { fixed.fields.credentials }
    /// What the component whose hook is running — a per-attempt
    /// interceptor's `intercept`, a plugin's `prepare` — declared it adds
    /// (``CredentialDeclaring/credentialIdentity(for:)``), when the response
    /// cache or coalescing keyed the call on it; `nil` when neither takes
    /// part, or outside such a hook. A component that reads its credential
    /// again to send it holds itself to it
    /// (``CredentialIdentity/expectDeclared(in:request:)``).
    public var declaredCredential: CredentialIdentity? { DeclaredCredential.current }

    /// What other Courier modules keep on the endpoint (an access token
    /// plugin's authorization type).
    package var attachments: EndpointAttachments { fixed.fields.attachments }
    /// The request body about to be sent, for plugins of Courier's own
    /// (``Plugin`` hooks see the head only); set for each attempt.
    package var requestBody: RequestBody?

    /// The client running the call, `nil` in a context made by hand: an
    /// `Authenticator` refreshes through it.
    package var client: APIClient? { services.map(APIClient.init(services:)) }

    /// The endpoint's name for logs: its route with placeholders, e.g. `GET users/{id}`.
    public var name: String { fixed.fields.givenName ?? route.description }

    /// Creates a context; the client makes these, tests may too.
    public init(
        callID: UInt64, name: String, route: Route, node: Node, environment: ServerEnvironment, attempt: Int,
        replay: Int = 0, authenticates: Bool = true, cancellation: CallCancellation? = nil
    ) {
        self.fixed = SharedFields(
            Fixed(
                callID: callID, givenName: name, route: route, node: node, environment: environment,
                authenticates: authenticates, cancellation: cancellation, isCredentialRefresh: false,
                isBackgroundRefresh: false, services: nil, attachments: EndpointAttachments(),
                credentials: .standard))
        self.attempt = attempt
        self.replay = replay
    }

    /// The pipeline's context: the name is the route's, made only when read.
    init(
        callID: UInt64, route: Route, node: Node, environment: ServerEnvironment, replay: Int,
        authenticates: Bool, cancellation: CallCancellation?, attachments: EndpointAttachments,
        services: ClientServices, isCredentialRefresh: Bool, isBackgroundRefresh: Bool,
        credentials: CredentialFields
    ) {
        self.fixed = SharedFields(
            Fixed(
                callID: callID, givenName: nil, route: route, node: node, environment: environment,
                authenticates: authenticates, cancellation: cancellation,
                isCredentialRefresh: isCredentialRefresh, isBackgroundRefresh: isBackgroundRefresh,
                services: services, attachments: attachments, credentials: credentials))
        self.attempt = 0
        self.replay = replay
    }

    /// The call's unchanging facts.
    private struct Fixed: Sendable {
        let callID: UInt64
        let givenName: String?
        let route: Route
        let node: Node
        let environment: ServerEnvironment
        let authenticates: Bool
        let cancellation: CallCancellation?
        let isCredentialRefresh: Bool
        let isBackgroundRefresh: Bool
        let services: ClientServices?
        let attachments: EndpointAttachments
        let credentials: CredentialFields
    }
}

/// The declaration of the component whose hook is running, in a shared
/// pass: set by the pipeline around that hook only, so a context — copied
/// at every stage — carries nothing for it.
enum DeclaredCredential {
    @TaskLocal static var current: CredentialIdentity?
}
