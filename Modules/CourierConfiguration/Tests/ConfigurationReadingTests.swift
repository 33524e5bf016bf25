#if Configuration
    import Configuration
    import CourierConfiguration
    import CourierCore
    import CourierProxies
    import CourierResilience
    import CourierTLS
    import CourierTransfers
    import CourierURLSession
    import Foundation
    import SystemPackage
    import Testing
    #if canImport(CourierCurl)
        import CourierCurl
    #endif
    #if AsyncHTTPClient
        import CourierAsyncHTTPClient
    #endif

    /// Every reader against swift-configuration's own providers: the keys as
    /// the environment spells them, defaults kept, and a wrong value named.
    struct ConfigurationReadingTests {
        static func environment(_ variables: [String: String]) -> ConfigReader {
            ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: variables))
        }

        static let transport = URLSessionTransport.shared

        @Test func aClientsSettingsFromTheEnvironment() throws {
            let config = Self.environment([
                "CLIENT_TIMEOUT_MS": "5000", "CLIENT_IDLE_TIMEOUT_MS": "750",
                "CLIENT_CONNECT_TIMEOUT_MS": "0",
                "CLIENT_DOWNLOAD_IDLE_TIMEOUT_MS": "0", "CLIENT_DOWNLOAD_TOTAL_TIMEOUT_MS": "600000",
                "CLIENT_MAX_BODY_SIZE": "1048576", "CLIENT_MAX_DOWNLOAD_SIZE": "0", "CLIENT_MAX_REPLAYS": "1",
                "CLIENT_WAITS_FOR_CONNECTIVITY": "true",
                "CLIENT_RETRY_MAX_ATTEMPTS": "4", "CLIENT_RETRY_DEADLINE_MS": "20000",
                "CLIENT_RETRY_RETRYABLE_STATUS_CODES": "503, 429", "CLIENT_RETRY_HONORS_RETRY_AFTER": "false",
                "CLIENT_RETRY_MAX_RETRY_AFTER_MS": "3000", "CLIENT_RETRY_BUDGET_RATIO": "0.1",
                "CLIENT_REDIRECTS_MODE": "disallow", "CLIENT_REDIRECTS_ALLOWS_DOWNGRADE": "yes",
                "CLIENT_CIRCUIT_BREAKER_OPEN_MS": "1500", "CLIENT_CIRCUIT_BREAKER_MINIMUM_CALLS": "7",
            ])
            let client = try APIClient.Configuration(
                transport: Self.transport, configReader: config.scoped(to: "client"))
            #expect(client.timeout == .milliseconds(5000))
            #expect(client.idleTimeout == .milliseconds(750))
            #expect(client.connectTimeout == nil)
            #expect(client.downloadTimeouts.idle == nil)
            #expect(client.downloadTimeouts.total == .seconds(600))
            #expect(client.maxBodySize == 1 << 20)
            #expect(client.maxDownloadSize == nil)
            #expect(client.maxReplays == 1)
            #expect(client.waitsForConnectivity)
            #expect(client.retryPolicy.maxAttempts == 4)
            #expect(client.retryPolicy.deadline == .seconds(20))
            #expect(client.retryPolicy.retryableStatusCodes == [429, 503])
            #expect(!client.retryPolicy.honorsRetryAfter)
            #expect(client.retryPolicy.maxRetryAfter == .seconds(3))
            #expect(client.retryPolicy.budget?.ratio == 0.1)
            #expect(client.retryPolicy.budget?.minimumPerSecond == 1)
            #expect(!client.redirects.follows)
            #expect(client.redirects.allowsDowngrade)
            #expect(client.circuitBreaker?.configuration.openDuration == .milliseconds(1500))
            #expect(client.circuitBreaker?.configuration.minimumCalls == 7)
            #expect(client.circuitBreaker?.configuration.failureRateThreshold == 0.5)
        }

        @Test func absentKeysKeepTheDefaults() throws {
            let client = try APIClient.Configuration(
                transport: Self.transport, configReader: Self.environment([:]))
            let defaults = APIClient.Configuration(transport: Self.transport)
            #expect(client.timeout == defaults.timeout)
            #expect(client.idleTimeout == defaults.idleTimeout)
            #expect(client.downloadTimeouts.idle == defaults.downloadTimeouts.idle)
            #expect(client.maxBodySize == defaults.maxBodySize)
            #expect(client.retryPolicy.maxAttempts == defaults.retryPolicy.maxAttempts)
            #expect(client.retryPolicy.budget == nil)
            #expect(client.redirects.follows && client.redirects.maxRedirects == 5)
            #expect(client.circuitBreaker == nil)
        }

        @Test func typedValuesFromMemoryOrAJSONFile() async throws {
            let memory = ConfigReader(
                provider: InMemoryProvider(values: [
                    "timeoutMs": 2500, "retry.maxAttempts": 2, "retry.budget.ratio": 0.25,
                    "retry.retryableStatusCodes": .init(.intArray([502, 503]), isSecret: false),
                    "circuitBreaker.enabled": true, "redirects.maxRedirects": "3",
                ]))
            // The same settings as a JSON file, read by swift-configuration's file provider.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID()).json")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(
                #"""
                {"timeoutMs": 2500, "retry": {"maxAttempts": 2, "budget": {"ratio": 0.25},
                 "retryableStatusCodes": [502, 503]}, "circuitBreaker": {"enabled": true},
                 "redirects": {"maxRedirects": "3"}}
                """#.utf8
            ).write(to: file)
            let json = ConfigReader(
                provider: try await FileProvider<JSONSnapshot>(filePath: FilePath(file.path)))
            for (source, config) in [("memory", memory), ("a JSON file", json)] {
                let client = try APIClient.Configuration(transport: Self.transport, configReader: config)
                #expect(client.timeout == .milliseconds(2500), "\(source)")
                #expect(client.retryPolicy.maxAttempts == 2, "\(source)")
                #expect(client.retryPolicy.budget?.ratio == 0.25, "\(source)")
                #expect(client.retryPolicy.retryableStatusCodes == [502, 503], "\(source)")
                #expect(client.circuitBreaker != nil, "\(source)")
                #expect(client.redirects.maxRedirects == 3, "\(source)")  // a number given as text counts
            }
        }

        @Test(arguments: [
            ("TIMEOUT_MS", "5s", "timeoutMs"), ("TIMEOUT_MS", "0", "timeoutMs"),
            ("RETRY_MAX_ATTEMPTS", "0", "retry.maxAttempts"),
            ("REDIRECTS_MODE", "sometimes", "redirects.mode"),
            ("WAITS_FOR_CONNECTIVITY", "maybe", "waitsForConnectivity"),
            ("RETRY_RETRYABLE_STATUS_CODES", "503,6000", "retry.retryableStatusCodes"),
            ("RETRY_BUDGET_RATIO", "1.5", "retry.budget.ratio"),
            ("CIRCUIT_BREAKER_FAILURE_RATE_THRESHOLD", "half", "circuitBreaker.failureRateThreshold"),
        ])
        func aWrongValueIsNamedNotIgnored(variable: String, value: String, key: String) {
            var client = APIClient.Configuration(transport: Self.transport)
            let error = #expect(throws: CourierConfigurationError.self) {
                try client.read(from: Self.environment([variable: value, "MAX_REPLAYS": "9"]))
            }
            #expect(error?.key == key)
            #expect(error?.description.hasPrefix("\(key): expected ") == true)
            #expect(client.maxReplays == 3)  // nothing changed
        }

        @Test func aNodesBaseURLsFromTheDeployment() throws {
            let node = Node(
                "api",
                urls: [.production: "https://api.example.com", .development: "https://dev.example.com"])
            let read = try node.reading(
                Self.environment([
                    "API_BASE_URL": "http://127.0.0.1:8080",
                    "API_URLS_DEVELOPMENT": "https://dev2.example.com",
                ])
                .scoped(to: "api"))
            #expect(
                read.urls == [.production: "http://127.0.0.1:8080", .development: "https://dev2.example.com"])
            #expect(try node.reading(Self.environment([:])) == node)
            let error = #expect(throws: CourierConfigurationError.self) {
                _ = try node.reading(Self.environment(["BASE_URL": "ftp://files.example.com"]))
            }
            #expect(error?.key == "baseURL")
        }

        @Test func urlSessionTakesItsLimitAndRefusesTLS() throws {
            let transport = try URLSessionTransport(
                configReader: Self.environment(["MAX_CONNECTIONS_PER_HOST": "6"]))
            #expect(transport.maxConnectionsPerHost == 6)
            let error = #expect(throws: CourierConfigurationError.self) {
                _ = try URLSessionTransport(
                    configReader: Self.environment(["TLS_CA_BUNDLE_PATH": "/etc/ca.pem"]))
            }
            #expect(error?.key == "tls")
        }

        #if canImport(CourierCurl)
            @Test func curlsSettings() throws {
                let curl = try CurlTransport.Configuration(
                    configReader: Self.environment([
                        "MAX_CONNECTIONS_PER_HOST": "4", "CONNECT_TIMEOUT_MS": "2500",
                        "HTTP_VERSION": "http1",
                        "EVENT_LOOP": "poll",
                        "HOST_OVERRIDES": "api.example.com:127.0.0.1, b.example.com:10.0.0.2",
                        "LOW_SPEED_LIMIT_BYTES_PER_SECOND": "100", "LOW_SPEED_LIMIT_SECONDS": "30",
                        "TLS_CA_BUNDLE_PATH": "/etc/courier/ca.pem",
                        "TLS_CLIENT_CERTIFICATE_CERTIFICATE_PATH": "/etc/courier/me.pem",
                        "TLS_CLIENT_CERTIFICATE_KEY_PATH": "/etc/courier/me.key",
                        "TLS_PINNED_PUBLIC_KEYS": "sha256//AAAA,sha256//BBBB",
                    ]))
                #expect(curl.maxConnectionsPerHost == 4)
                #expect(curl.connectTimeoutMilliseconds == 2500)
                #expect(
                    curl.httpVersion.description == CurlTransport.Configuration.HTTPVersion.http1.description)
                #expect(curl.eventLoop.description == CurlTransport.Configuration.EventLoop.poll.description)
                #expect(curl.hostOverrides == ["api.example.com": "127.0.0.1", "b.example.com": "10.0.0.2"])
                #expect(curl.lowSpeedLimit?.bytesPerSecond == 100 && curl.lowSpeedLimit?.seconds == 30)
                #expect(
                    curl.tls
                        == TLSSettings(
                            caBundlePath: "/etc/courier/ca.pem",
                            clientCertificate: .init(
                                certificatePath: "/etc/courier/me.pem", keyPath: "/etc/courier/me.key"),
                            pinnedPublicKeys: ["sha256//AAAA", "sha256//BBBB"]))
                for (variable, value, key) in [
                    ("LOW_SPEED_LIMIT_SECONDS", "30", "lowSpeedLimit.bytesPerSecond"),
                    ("HOST_OVERRIDES", "api.example.com", "hostOverrides"),
                    ("TLS_PINNED_PUBLIC_KEYS", "md5//AAAA", "tls.pinnedPublicKeys"),
                    ("TLS_CLIENT_CERTIFICATE_KEY_PATH", "/k", "tls.clientCertificate.certificatePath"),
                ] {
                    let error = #expect(throws: CourierConfigurationError.self) {
                        _ = try CurlTransport.Configuration(configReader: Self.environment([variable: value]))
                    }
                    #expect(error?.key == key, "\(variable)")
                }
            }

            @Test func aProxyURLIsRead() throws {
                let curl = try CurlTransport.Configuration(
                    configReader: Self.environment(["PROXY": "http://user:secret@proxy.example.com:3128"]))
                let proxy = curl.proxy.proxy(
                    for: ProxyTarget(scheme: "https", host: "api.example", port: 443))
                #expect(
                    proxy
                        == Proxy(
                            .http, host: "proxy.example.com", port: 3128,
                            credentials: .init(user: "user", password: "secret")))
            }
        #endif

        #if AsyncHTTPClient
            @Test func asyncHTTPClientsSettings() throws {
                let ahc = try AsyncHTTPClientTransport.Configuration(
                    configReader: Self.environment([
                        "CONNECT_TIMEOUT_MS": "1500", "MAX_CONNECTIONS_PER_HOST": "16",
                        "IDLE_TIMEOUT_MS": "5000",
                        "ALLOWS_HTTP2": "false", "HOST_OVERRIDES": "api.example.com:127.0.0.1",
                    ]))
                #expect(ahc.connectTimeout == .milliseconds(1500))
                #expect(ahc.maxConnectionsPerHost == 16)
                #expect(ahc.idleTimeout == .seconds(5))
                #expect(!ahc.allowsHTTP2)
                #expect(ahc.hostOverrides == ["api.example.com": "127.0.0.1"])
            }
        #endif
    }
#else
    import Testing

    /// Without the `Configuration` trait CourierConfiguration is not built,
    /// and its tests with it: said, not silent (the test command builds
    /// with the trait, and scripts/check-tsan requires these suites to run).
    @Suite(.disabled("built without the Configuration trait: swift test --traits Configuration"))
    struct ConfigurationReadingTests {
        @Test func notBuilt() {}
    }
#endif
