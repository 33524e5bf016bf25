#if Configuration
    public import Configuration
    public import CourierCore
    import Foundation

    extension Node {
        /// A copy of the node with the base URLs `configReader` gives: the
        /// deployment decides where the API is, the code what it is.
        ///
        /// | Key | Type | Sets |
        /// |---|---|---|
        /// | `baseURL` | http(s) URL | the production URL (every environment's, for a node with one URL) |
        /// | `urls.<environment>` | http(s) URL | that environment's URL, for the environments the node names |
        ///
        /// ```swift
        /// static let api = Node("api", urls: [.production: "https://api.example.com",
        ///                                     .development: "https://dev.example.com"])
        /// let deployed = try Node.api.reading(config.scoped(to: "api"))
        /// // API_BASE_URL=http://127.0.0.1:8080 or API_URLS_DEVELOPMENT=…
        /// ```
        /// - Parameter configReader: The reader, scoped to the node's keys.
        /// - Returns: The node with the URLs given; the same node when none are.
        /// - Throws: ``CourierConfigurationError`` for a value that is not an
        ///   http(s) URL with a host.
        public func reading(_ configReader: ConfigReader) throws(CourierConfigurationError) -> Node {
            let settings = SettingsReader(configReader)
            var copy = self
            if let url = try Self.checkedURL(settings, "baseURL") { copy.urls[.production] = url }
            let environments = settings.scoped("urls")
            for environment in urls.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                if let url = try Self.checkedURL(environments, environment.rawValue) {
                    copy.urls[environment] = url
                }
            }
            return copy
        }

        private static func checkedURL(_ settings: SettingsReader, _ key: String)
            throws(CourierConfigurationError)
            -> String?
        {
            guard let text = settings.string(forKey: ConfigKey(key)) else { return nil }
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", url.host?.isEmpty == false
            else {
                throw CourierConfigurationError(
                    key: settings.fullName(key), found: text, expected: "an http or https URL with a host")
            }
            return text
        }
    }
#endif
