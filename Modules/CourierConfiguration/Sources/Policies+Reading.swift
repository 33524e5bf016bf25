#if Configuration
    public import Configuration
    public import CourierCore
    public import CourierResilience

    extension RetryPolicy: SettingsApplying {
        /// Sets what `configReader` has a key for; the rest stays as it is.
        ///
        /// | Key | Type | Sets |
        /// |---|---|---|
        /// | `maxAttempts` | int ≥ 1 (1: never retry) | `maxAttempts` |
        /// | `backoff.initialMs`, `backoff.multiplier`, `backoff.maxMs` | int ≥ 1, number ≥ 1, int ≥ 1 | an exponential `backoff` (500 ms, 2, 30 s for the ones not given) |
        /// | `jitter` | `full` or `none` | `jitter` |
        /// | `deadlineMs` | int, 0 = none | `deadline` |
        /// | `retryableStatusCodes` | ints 100–599 | `retryableStatusCodes` |
        /// | `honorsRetryAfter` | bool | `honorsRetryAfter` |
        /// | `maxRetryAfterMs` | int ≥ 1 | `maxRetryAfter` |
        /// | `budget.ratio`, `budget.minimumPerSecond`, `budget.windowMs` | number 0–1, int ≥ 0, int ≥ 1 | a new `budget` (0.2, 1, 10 s for the ones not given) |
        /// - Parameter configReader: The reader, scoped to the policy's keys.
        /// - Throws: ``CourierConfigurationError`` for the first key whose
        ///   value is present but unusable; nothing is changed then.
        public mutating func read(from configReader: ConfigReader) throws(CourierConfigurationError) {
            try readAll(configReader)
        }

        mutating func apply(_ settings: SettingsReader) throws(CourierConfigurationError) {
            if let count = try settings.checkedInt(
                "maxAttempts", in: 1...Int.max, expected: "a whole number, 1 or more")
            {
                maxAttempts = count
            }
            let backoffKeys = settings.scoped("backoff")
            let initial = try backoffKeys.checkedMilliseconds("initialMs")
            let multiplier = try backoffKeys.checkedDouble(
                "multiplier", in: 1...1_000, expected: "a number from 1 to 1000")
            let cap = try backoffKeys.checkedMilliseconds("maxMs")
            if initial != nil || multiplier != nil || cap != nil {
                backoff = .exponential(
                    initial: initial ?? .milliseconds(500), multiplier: multiplier ?? 2,
                    cap: cap ?? .seconds(30))
            }
            if let choice = try settings.checkedChoice("jitter", ["full", "none"]) {
                jitter = choice == "full" ? .full : .none
            }
            if let value = try settings.checkedMilliseconds("deadlineMs", allowsZero: true) {
                deadline = value == .zero ? nil : value
            }
            if let codes = try settings.checkedInts(
                "retryableStatusCodes", in: 100...599, expected: "status codes from 100 to 599")
            {
                retryableStatusCodes = Set(codes)
            }
            if let flag = try settings.checkedBool("honorsRetryAfter") { honorsRetryAfter = flag }
            if let value = try settings.checkedMilliseconds("maxRetryAfterMs") { maxRetryAfter = value }
            let budgetKeys = settings.scoped("budget")
            let ratio = try budgetKeys.checkedDouble("ratio", in: 0...1, expected: "a number from 0 to 1")
            let floor = try budgetKeys.checkedInt("minimumPerSecond", expected: "a whole number, 0 or more")
            let window = try budgetKeys.checkedMilliseconds("windowMs")
            if ratio != nil || floor != nil || window != nil {
                budget = RetryBudget(
                    ratio: ratio ?? 0.2, minimumPerSecond: floor ?? 1, window: window ?? .seconds(10))
            }
        }
    }

    extension RedirectPolicy: SettingsApplying {
        /// Sets what `configReader` has a key for; the rest stays as it is.
        ///
        /// | Key | Type | Sets |
        /// |---|---|---|
        /// | `mode` | `follow` or `disallow` | `follows` (async-http-client's key and words) |
        /// | `maxRedirects` | int ≥ 0 | `maxRedirects` |
        /// | `allowsDowngrade` | bool | `allowsDowngrade` (https → http) |
        /// - Parameter configReader: The reader, scoped to the policy's keys.
        /// - Throws: ``CourierConfigurationError`` for the first key whose
        ///   value is present but unusable; nothing is changed then.
        public mutating func read(from configReader: ConfigReader) throws(CourierConfigurationError) {
            try readAll(configReader)
        }

        mutating func apply(_ settings: SettingsReader) throws(CourierConfigurationError) {
            if let mode = try settings.checkedChoice("mode", ["follow", "disallow"]) {
                follows = mode == "follow"
            }
            if let count = try settings.checkedInt("maxRedirects", expected: "a whole number, 0 or more") {
                maxRedirects = count
            }
            if let flag = try settings.checkedBool("allowsDowngrade") { allowsDowngrade = flag }
        }
    }

    extension CircuitBreaker.Configuration: SettingsApplying {
        /// Sets what `configReader` has a key for; the rest stays as it is.
        ///
        /// | Key | Type | Sets |
        /// |---|---|---|
        /// | `failureRateThreshold` | number 0–1 | `failureRateThreshold` |
        /// | `minimumCalls` | int ≥ 1 | `minimumCalls` |
        /// | `windowMs` | int ≥ 1 | `window` |
        /// | `openMs` | int ≥ 1 | `openDuration` |
        /// | `halfOpenProbes` | int ≥ 1 | `halfOpenProbes` |
        ///
        /// A client reads them under `circuitBreaker`, with `enabled` (bool)
        /// to add a breaker or take its own away.
        /// - Parameter configReader: The reader, scoped to the breaker's keys.
        /// - Throws: ``CourierConfigurationError`` for the first key whose
        ///   value is present but unusable; nothing is changed then.
        public mutating func read(from configReader: ConfigReader) throws(CourierConfigurationError) {
            try readAll(configReader)
        }

        mutating func apply(_ settings: SettingsReader) throws(CourierConfigurationError) {
            if let rate = try settings.checkedDouble(
                "failureRateThreshold", in: 0...1, expected: "a number from 0 to 1")
            {
                failureRateThreshold = rate
            }
            if let count = try settings.checkedInt(
                "minimumCalls", in: 1...Int.max, expected: "a whole number, 1 or more")
            {
                minimumCalls = count
            }
            if let value = try settings.checkedMilliseconds("windowMs") { window = value }
            if let value = try settings.checkedMilliseconds("openMs") { openDuration = value }
            if let count = try settings.checkedInt(
                "halfOpenProbes", in: 1...Int.max, expected: "a whole number, 1 or more")
            {
                halfOpenProbes = count
            }
        }

        /// The breaker a client's `circuitBreaker` keys describe: `current`
        /// when there are none; a new breaker (on `clock`) when `enabled`
        /// is true or a setting is given, from `current`'s settings; none when
        /// `enabled` is false.
        static func reading(_ settings: SettingsReader, current: CircuitBreaker?, clock: any CourierClock)
            throws(CourierConfigurationError) -> CircuitBreaker?
        {
            let enabled = try settings.checkedBool("enabled")
            if enabled == false { return nil }
            var configuration = current?.configuration ?? .init()
            try configuration.apply(settings)
            let keys = ["failureRateThreshold", "minimumCalls", "windowMs", "openMs", "halfOpenProbes"]
            let given = keys.contains(where: settings.has)
            guard enabled == true || given else { return current }
            return CircuitBreaker(configuration, clock: clock)
        }
    }
#endif
