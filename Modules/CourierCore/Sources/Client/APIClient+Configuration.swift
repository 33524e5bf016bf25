extension APIClient {
    /// Everything a client holds: the transport, the decoder, the interceptors
    /// and plugins, and the defaults endpoints inherit.
    public struct Configuration: Sendable {
        /// Sends requests.
        public var transport: any Transport
        /// Decodes models and reads envelopes; `nil` allows raw endpoints only.
        public var decoder: (any ResponseDecoder)?
        /// Per-call interceptors (run before each endpoint's own).
        public var callInterceptors: [any Interceptor]
        /// Per-attempt interceptors (run before each endpoint's own).
        public var attemptInterceptors: [any Interceptor]
        /// Parameter interceptors (run before each endpoint's own).
        public var parameterInterceptors: [ParameterInterceptor]
        /// Plugins, in the order their hooks run.
        public var plugins: [any Plugin]
        /// Endpoint → spec mapping applied to every call.
        public var endpointMapping: EndpointMapping
        /// Retry policy for endpoints without their own: never retry by default.
        public var retryPolicy: RetryPolicy
        /// Validation for endpoints without their own: 200–299 by default.
        public var validation: Validation
        /// Parameter encoding for endpoints without their own.
        public var parameterEncoding: ParameterEncoding
        /// The longest one attempt of an ordinary call may take, for
        /// endpoints without their own (``EndpointSpec/timeout``): 60 s.
        /// Downloads have their own bounds (CourierTransfers' `downloadTimeouts`).
        public var timeout: Duration
        /// The longest an attempt of an ordinary call may move no byte in
        /// either direction, for endpoints without their own: `nil` (only
        /// ``timeout``) by default.
        public var idleTimeout: Duration?
        /// What bounds an attempt of a download (an endpoint with a download
        /// target): by default only the quiet between bytes (60 s), so a
        /// large file over a slow link is not cut off at a total.
        /// CourierTransfers' `downloadTimeouts` sets them.
        package var downloadIdleTimeout: Duration? = .seconds(60)
        package var downloadTotalTimeout: Duration? = nil
        /// The longest establishing a connection may take, for every call;
        /// `nil` (the transport's own setting) by default. CurlTransport
        /// honours it per request; async-http-client and URLSession have
        /// one connect timeout per client or none (see their READMEs).
        public var connectTimeout: Duration?
        /// The largest in-memory response body: 64 MiB.
        public var maxBodySize: Int
        /// The largest body a download endpoint may write to disk, counted
        /// after decompression: `nil` (no limit) by default
        /// (CourierTransfers' `maxDownloadSize`).
        package var downloadSizeLimit: Int64? = nil
        /// The most decoded bytes per coded byte a content-coded download
        /// may write past its first MiB: 200 by default, `nil` for no bound
        /// (CourierTransfers' `maxDownloadExpansion`).
        package var downloadExpansionLimit: Int? = 200
        /// How many times response handlers may run a call again: 3.
        public var maxReplays: Int
        /// The clock for retry delays and deadlines.
        public var clock: any CourierClock
        /// How redirects are followed: ``RedirectPolicy/follow`` (five hops,
        /// no https→http, a hop to another origin drops credentials) by
        /// default. The pipeline follows them, hop by hop, for every transport:
        /// a transport sends one request and returns a 3xx as it is.
        public var redirects: RedirectPolicy
        /// The cookie jar: every hop of every call (redirects included) sends
        /// the cookies it holds for the hop's URL and stores the cookies the
        /// hop's response sets. `nil` (no cookies) by default — a server
        /// talking to APIs on behalf of many users must not mix their
        /// sessions; `CourierCookies`' `CookieJar` is the one to set.
        public var cookies: (any CookieStorage)?
        /// Told of every step of every call (``EventMonitor``), before the
        /// call's plugins, which are monitors too; empty by default.
        public var eventMonitors: [any EventMonitor]
        /// The header fields that carry credentials (``CredentialFields``):
        /// the standard ones by default. Declare the fields your API puts
        /// its credentials in, so that caching, coalescing, redirects and
        /// redaction treat them as they treat `Authorization`.
        public var credentialFields: CredentialFields = .standard
        /// The response cache calls consult (CourierCache's
        /// `configuration.cache`); `nil` (no cache) by default.
        package var responseCache: (any ResponseCaching)?
        /// What satellite modules keep here (``ClientExtension``), by type.
        package var extensions: [ObjectIdentifier: any ClientExtension] = [:]

        /// Creates a configuration; only the transport is required.
        public init(
            transport: any Transport,
            decoder: (any ResponseDecoder)? = nil,
            callInterceptors: [any Interceptor] = [],
            attemptInterceptors: [any Interceptor] = [],
            parameterInterceptors: [ParameterInterceptor] = [],
            plugins: [any Plugin] = [],
            endpointMapping: EndpointMapping = .default,
            retryPolicy: RetryPolicy = .never,
            validation: Validation = .successCodes,
            parameterEncoding: ParameterEncoding = .default,
            timeout: Duration = .seconds(60),
            maxBodySize: Int = TransportOptions.defaultMaxBodySize,
            maxReplays: Int = 3,
            clock: any CourierClock = SystemClock(),
            redirects: RedirectPolicy = .follow,
            cookies: (any CookieStorage)? = nil,
            idleTimeout: Duration? = nil,
            connectTimeout: Duration? = nil,
            eventMonitors: [any EventMonitor] = []
        ) {
            self.transport = transport
            self.decoder = decoder
            self.callInterceptors = callInterceptors
            self.attemptInterceptors = attemptInterceptors
            self.parameterInterceptors = parameterInterceptors
            self.plugins = plugins
            self.endpointMapping = endpointMapping
            self.retryPolicy = retryPolicy
            self.validation = validation
            self.parameterEncoding = parameterEncoding
            self.timeout = timeout
            self.idleTimeout = idleTimeout
            self.connectTimeout = connectTimeout
            self.maxBodySize = maxBodySize
            self.maxReplays = maxReplays
            self.clock = clock
            self.redirects = redirects
            self.cookies = cookies
            self.eventMonitors = eventMonitors
        }
    }
}
