#if Configuration
    public import Configuration
    public import CourierCore
    import CourierResilience
    import CourierTransfers

    extension APIClient.Configuration: SettingsApplying {
        /// A client's configuration with its settings read from
        /// `configReader` (swift-configuration: environment variables, JSON
        /// files, command-line arguments, in memory); every key absent keeps
        /// the default. What code must give — the transport, the decoder,
        /// interceptors and plugins — it is given here.
        ///
        /// ```swift
        /// let config = ConfigReader(providers: [EnvironmentVariablesProvider(),
        ///                                       try await FileProvider<JSONSnapshot>(filePath: "courier.json")])
        /// let client = APIClient(configuration: try .init(
        ///     transport: CurlTransport(configuration: try .init(configReader: config.scoped(to: "curl"))),
        ///     configReader: config.scoped(to: "client")))
        /// // CLIENT_TIMEOUT_MS=5000 CLIENT_RETRY_MAX_ATTEMPTS=3 ./server
        /// ```
        ///
        /// See ``read(from:)`` for the keys.
        /// - Throws: ``CourierConfigurationError`` naming the first key whose
        ///   value is present but unusable.
        public init(
            transport: any Transport, decoder: (any ResponseDecoder)? = nil, configReader: ConfigReader
        ) throws(CourierConfigurationError) {
            self.init(transport: transport, decoder: decoder)
            try read(from: configReader)
        }

        /// Sets what `configReader` has a key for; the rest stays as it is.
        ///
        /// Durations are whole milliseconds, as async-http-client's keys are;
        /// for an optional one, `0` means none. Sizes are bytes. In the
        /// environment a key is upper-cased with `_` between words and
        /// scopes: `retry.maxAttempts` under a reader scoped to `client` is
        /// `CLIENT_RETRY_MAX_ATTEMPTS`.
        ///
        /// | Key | Type | Sets |
        /// |---|---|---|
        /// | `timeoutMs` | int ≥ 1 | `timeout` (an ordinary call's attempt) |
        /// | `idleTimeoutMs` | int, 0 = none | `idleTimeout` |
        /// | `connectTimeoutMs` | int, 0 = the transport's | `connectTimeout` |
        /// | `download.idleTimeoutMs`, `download.totalTimeoutMs` | int, 0 = none | `downloadTimeouts` |
        /// | `maxBodySize` | int ≥ 1 | `maxBodySize` |
        /// | `maxDownloadSize` | int, 0 = no limit | `maxDownloadSize` |
        /// | `maxReplays` | int ≥ 0 | `maxReplays` |
        /// | `waitsForConnectivity` | bool | `waitsForConnectivity` |
        /// | `retry.…` | | `retryPolicy`: see `RetryPolicy.read(from:)` |
        /// | `redirects.…` | | `redirects`: see `RedirectPolicy.read(from:)` |
        /// | `circuitBreaker.…` | | `circuitBreaker`: see `CircuitBreaker.Configuration.read(from:)` |
        /// - Parameter configReader: The reader, scoped as you like.
        /// - Throws: ``CourierConfigurationError`` for the first key whose
        ///   value is present but unusable; nothing is changed then.
        public mutating func read(from configReader: ConfigReader) throws(CourierConfigurationError) {
            try readAll(configReader)
        }

        mutating func apply(_ settings: SettingsReader) throws(CourierConfigurationError) {
            if let value = try settings.checkedMilliseconds("timeoutMs") { timeout = value }
            if let value = try settings.checkedMilliseconds("idleTimeoutMs", allowsZero: true) {
                idleTimeout = value == .zero ? nil : value
            }
            if let value = try settings.checkedMilliseconds("connectTimeoutMs", allowsZero: true) {
                connectTimeout = value == .zero ? nil : value
            }
            let download = settings.scoped("download")
            if let value = try download.checkedMilliseconds("idleTimeoutMs", allowsZero: true) {
                downloadTimeouts.idle = value == .zero ? nil : value
            }
            if let value = try download.checkedMilliseconds("totalTimeoutMs", allowsZero: true) {
                downloadTimeouts.total = value == .zero ? nil : value
            }
            if let bytes = try settings.checkedInt(
                "maxBodySize", in: 1...Int.max, expected: "a number of bytes, 1 or more")
            {
                maxBodySize = bytes
            }
            if let bytes = try settings.checkedInt(
                "maxDownloadSize", expected: "a number of bytes, 0 for no limit")
            {
                maxDownloadSize = bytes == 0 ? nil : Int64(bytes)
            }
            if let count = try settings.checkedInt("maxReplays", expected: "a whole number, 0 or more") {
                maxReplays = count
            }
            if let flag = try settings.checkedBool("waitsForConnectivity") { waitsForConnectivity = flag }
            try retryPolicy.apply(settings.scoped("retry"))
            try redirects.apply(settings.scoped("redirects"))
            circuitBreaker = try CircuitBreaker.Configuration.reading(
                settings.scoped("circuitBreaker"), current: circuitBreaker, clock: clock)
        }
    }
#endif
