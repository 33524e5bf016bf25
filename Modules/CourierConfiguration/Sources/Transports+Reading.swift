#if Configuration
    public import Configuration
    import CourierCore
    import CourierProxies
    public import CourierTLS
    public import CourierURLSession
    import Foundation
    #if canImport(FoundationNetworking)
        public import FoundationNetworking
    #endif
    #if canImport(CourierCurl)
        public import CourierCurl
    #endif
    #if AsyncHTTPClient
        public import CourierAsyncHTTPClient
    #endif

    extension TLSSettings: SettingsApplying {
        /// Sets what `configReader` has a key for; the rest stays as it is.
        /// Verification stays on whatever the keys say.
        ///
        /// | Key | Type | Sets |
        /// |---|---|---|
        /// | `caBundlePath` | path | `caBundlePath` (a PEM bundle instead of the system's CAs) |
        /// | `clientCertificate.certificatePath`, `clientCertificate.keyPath` | paths, both or neither | `clientCertificate` |
        /// | `pinnedPublicKeys` | `sha256//<base64>` list | `pinnedPublicKeys` |
        /// - Parameter configReader: The reader, scoped to the TLS keys.
        /// - Throws: ``CourierConfigurationError`` for the first key whose
        ///   value is present but unusable; nothing is changed then.
        public mutating func read(from configReader: ConfigReader) throws(CourierConfigurationError) {
            try readAll(configReader)
        }

        mutating func apply(_ settings: SettingsReader) throws(CourierConfigurationError) {
            if let path = settings.string(forKey: "caBundlePath") { caBundlePath = path.isEmpty ? nil : path }
            let certificate = settings.scoped("clientCertificate")
            let certificatePath = certificate.string(forKey: "certificatePath")
            let keyPath = certificate.string(forKey: "keyPath")
            switch (certificatePath, keyPath) {
            case (let certificatePath?, let keyPath?):
                clientCertificate = .init(certificatePath: certificatePath, keyPath: keyPath)
            case (nil, nil):
                break
            default:
                throw CourierConfigurationError(
                    key: certificate.fullName(certificatePath == nil ? "certificatePath" : "keyPath"),
                    found: nil,
                    expected: "a path beside the other clientCertificate path: both or neither")
            }
            if let pins = settings.checkedStrings("pinnedPublicKeys") {
                if let wrong = pins.first(where: { !$0.hasPrefix("sha256//") || $0.count <= 8 }) {
                    throw CourierConfigurationError(
                        key: settings.fullName("pinnedPublicKeys"), found: wrong,
                        expected: "sha256//<base64 of the SubjectPublicKeyInfo's SHA-256>, comma-separated")
                }
                pinnedPublicKeys = pins
            }
        }
    }

    #if canImport(CourierCurl)
        extension CurlTransport.Configuration {
            /// The defaults, with what `configReader` has a key for.
            ///
            /// | Key | Type | Sets |
            /// |---|---|---|
            /// | `maxConnectionsPerHost`, `maxConnections`, `maxActiveTransfers` | int ≥ 1 | the same |
            /// | `connectTimeoutMs` | int ≥ 1 | `connectTimeoutMilliseconds` |
            /// | `lowSpeedLimit.bytesPerSecond`, `lowSpeedLimit.seconds` | int ≥ 1, both | `lowSpeedLimit` |
            /// | `httpVersion` | `automatic`, `http1`, `http2PriorKnowledge` | `httpVersion` |
            /// | `proxy` | proxy URL (a secret: may hold a password); empty for none | `proxy`: every request through it |
            /// | `noProxy` | curl's `NO_PROXY` list | `proxy`'s exceptions |
            /// | `eventLoop` | `automatic`, `epoll`, `poll` | `eventLoop` |
            /// | `responseBufferPoolBytes` | int ≥ 0 | `responseBufferPoolBytes` |
            /// | `hostOverrides` | `host:address` list | `hostOverrides` |
            /// | `tls.…` | | `tls`: see `TLSSettings.read(from:)` |
            /// - Parameter configReader: The reader, scoped to the transport's keys.
            /// - Throws: ``CourierConfigurationError`` for the first key whose
            ///   value is present but unusable.
            public init(configReader: ConfigReader) throws(CourierConfigurationError) {
                self.init()
                let settings = SettingsReader(configReader)
                let positive = "a whole number, 1 or more"
                if let count = try settings.checkedInt(
                    "maxConnectionsPerHost", in: 1...Int.max, expected: positive)
                {
                    maxConnectionsPerHost = count
                }
                if let count = try settings.checkedInt("maxConnections", in: 1...Int.max, expected: positive)
                {
                    maxConnections = count
                }
                if let count = try settings.checkedInt(
                    "maxActiveTransfers", in: 1...Int.max, expected: positive)
                {
                    maxActiveTransfers = count
                }
                if let value = try settings.checkedInt(
                    "connectTimeoutMs", in: 1...Int.max, expected: "a whole number of milliseconds, 1 or more"
                ) {
                    connectTimeoutMilliseconds = value
                }
                let speed = settings.scoped("lowSpeedLimit")
                let bytes = try speed.checkedInt("bytesPerSecond", in: 1...Int.max, expected: positive)
                let seconds = try speed.checkedInt("seconds", in: 1...Int.max, expected: positive)
                switch (bytes, seconds) {
                case (let bytes?, let seconds?): lowSpeedLimit = (bytes, seconds)
                case (nil, nil): break
                default:
                    throw CourierConfigurationError(
                        key: speed.fullName(bytes == nil ? "bytesPerSecond" : "seconds"), found: nil,
                        expected: "a value beside the other lowSpeedLimit key: both or neither")
                }
                if let version = try settings.checkedChoice(
                    "httpVersion", ["automatic", "http1", "http2PriorKnowledge"])
                {
                    httpVersion =
                        switch version {
                        case "http1": .http1
                        case "http2PriorKnowledge": .http2PriorKnowledge
                        default: .automatic
                        }
                }
                if let url = settings.string(forKey: "proxy", isSecret: true), !url.isEmpty {
                    let through: Proxy
                    do {
                        through = try Proxy(url: url)
                    } catch {
                        throw CourierConfigurationError(
                            key: settings.fullName("proxy"), found: nil,
                            expected: "a proxy URL: \(error.reason)")
                    }
                    var except = NoProxyList.none
                    if let list = settings.string(forKey: "noProxy") {
                        do {
                            except = try NoProxyList(list)
                        } catch {
                            throw CourierConfigurationError(
                                key: settings.fullName("noProxy"), found: list,
                                expected: "a no-proxy list: \(error.reason)")
                        }
                    }
                    proxy = .through(through, except: except)
                }
                if let loop = try settings.checkedChoice("eventLoop", ["automatic", "epoll", "poll"]) {
                    eventLoop =
                        switch loop {
                        case "epoll": .epoll
                        case "poll": .poll
                        default: .automatic
                        }
                }
                if let bytes = try settings.checkedInt(
                    "responseBufferPoolBytes", expected: "a number of bytes, 0 or more")
                {
                    responseBufferPoolBytes = bytes
                }
                if let overrides = try settings.checkedHostOverrides("hostOverrides") {
                    hostOverrides = overrides
                }
                try tls.apply(settings.scoped("tls"))
            }
        }
    #endif

    #if AsyncHTTPClient
        extension AsyncHTTPClientTransport.Configuration {
            /// The defaults, with what `configReader` has a key for. The
            /// names are Courier's, the same as `CurlTransport`'s where the
            /// setting is the same.
            ///
            /// | Key | Type | Sets |
            /// |---|---|---|
            /// | `connectTimeoutMs` | int ≥ 1 | `connectTimeout` |
            /// | `maxConnectionsPerHost` | int ≥ 1 | `maxConnectionsPerHost` |
            /// | `idleTimeoutMs` | int ≥ 1 | `idleTimeout` (of a pooled connection) |
            /// | `allowsHTTP2` | bool | `allowsHTTP2` |
            /// | `hostOverrides` | `host:address` list | `hostOverrides` |
            /// | `tls.…` | | `tls`: see `TLSSettings.read(from:)` |
            /// - Parameter configReader: The reader, scoped to the transport's keys.
            /// - Throws: ``CourierConfigurationError`` for the first key whose
            ///   value is present but unusable.
            public init(configReader: ConfigReader) throws(CourierConfigurationError) {
                self.init()
                let settings = SettingsReader(configReader)
                if let value = try settings.checkedMilliseconds("connectTimeoutMs") { connectTimeout = value }
                if let count = try settings.checkedInt(
                    "maxConnectionsPerHost", in: 1...Int.max, expected: "a whole number, 1 or more")
                {
                    maxConnectionsPerHost = count
                }
                if let value = try settings.checkedMilliseconds("idleTimeoutMs") { idleTimeout = value }
                if let flag = try settings.checkedBool("allowsHTTP2") { allowsHTTP2 = flag }
                if let overrides = try settings.checkedHostOverrides("hostOverrides") {
                    hostOverrides = overrides
                }
                try tls.apply(settings.scoped("tls"))
            }
        }
    #endif

    extension URLSessionTransport {
        /// A transport over `configuration` with `maxConnectionsPerHost`
        /// (int ≥ 1) read from `configReader`.
        ///
        /// URLSession takes no TLS settings from Courier (see
        /// `URLSessionTransport.init(configuration:maxConnectionsPerHost:tls:)`):
        /// a `tls` key is an error here, not ignored.
        /// - Throws: ``CourierConfigurationError`` for a value present but
        ///   unusable, or any `tls` key.
        public convenience init(
            configuration: URLSessionConfiguration = .ephemeral, configReader: ConfigReader
        ) throws(CourierConfigurationError) {
            let settings = SettingsReader(configReader)
            let limit = try settings.checkedInt(
                "maxConnectionsPerHost", in: 1...Int.max, expected: "a whole number, 1 or more")
            var tls = TLSSettings.system
            try tls.apply(settings.scoped("tls"))
            guard tls == .system else {
                throw CourierConfigurationError(
                    key: settings.fullName("tls"), found: nil,
                    expected: "no TLS settings: URLSessionTransport cannot apply them (use CurlTransport)")
            }
            self.init(configuration: configuration, maxConnectionsPerHost: limit ?? 32)
        }
    }
#endif
