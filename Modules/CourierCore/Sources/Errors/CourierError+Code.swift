extension CourierError {
    /// What went wrong: an open set of codes with static members.
    ///
    /// Compare with `==` or match in a `switch` with `case .status:`; a
    /// `default` branch is always needed because new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A stable identifier, suitable for metric labels and logs.
        public let rawValue: String

        /// Creates a code; use the static members unless you define your own.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// A stable identifier, suitable for metric labels.
        public var description: String { rawValue }

        /// The endpoint could not be turned into a request (bad URL, unreadable
        /// file, invalid parameter, encoding failure).
        public static let invalidRequest = Code("invalidRequest")
        /// The transport failed: connection refused or reset, TLS, protocol error.
        public static let transport = Code("transport")
        /// A timeout fired: the request's own, or the transport's.
        public static let timedOut = Code("timedOut")
        /// The call was cancelled (its Swift `Task`, or its cancellable handle).
        public static let cancelled = Code("cancelled")
        /// The response status is not an acceptable one.
        public static let status = Code("status")
        /// The response content type is not an acceptable one.
        public static let contentType = Code("contentType")
        /// The envelope is malformed, or its code says the call failed.
        public static let envelope = Code("envelope")
        /// The payload could not be decoded into the model.
        public static let decoding = Code("decoding")
        /// An interceptor or plugin stopped the call before it was sent.
        public static let vetoed = Code("vetoed")
        /// An interceptor, plugin or response handler threw an error of its own.
        public static let interceptor = Code("interceptor")
        /// Every allowed attempt failed; ``CourierError/underlying`` is the last failure.
        public static let retriesExhausted = Code("retriesExhausted")
        /// The retry deadline across all attempts ran out.
        public static let deadlineExceeded = Code("deadlineExceeded")
        /// A retry was due but the request body can only be sent once.
        public static let bodyNotReplayable = Code("bodyNotReplayable")
        /// No ``ResponseDecoder`` is configured but the endpoint needs one.
        public static let noDecoder = Code("noDecoder")
        /// A header value, the authority (`Host`) or the path would carry a
        /// control character; the request was refused before it was sent
        /// (RFC 9110 §5.5).
        public static let invalidHeader = Code("invalidHeader")
        /// Another call of the same concurrency group (CourierConcurrencyGroups) with
        /// `.cancelOthers` ended this one; never retried.
        public static let cancelledByPolicy = Code("cancelledByPolicy")
        /// The call's `.ignoreCurrent` policy refused it
        /// because another call of its group was running; never retried.
        public static let ignoredByPolicy = Code("ignoredByPolicy")
        /// A stored response could not be used: its store failed to read it,
        /// or it no longer passes validation or decoding
        /// (``CourierError/underlying`` says which). Never ends a call by
        /// itself: the network answers instead.
        public static let cache = Code("cache")
        /// The client's network monitor (CourierResilience) said the machine is offline: the
        /// attempt was refused before any socket was opened. Not retried by
        /// default (``RetryPolicy/retryIf`` can opt in).
        public static let offline = Code("offline")
        /// A plugin or per-attempt interceptor was about to send another
        /// credential than the one it declared when the response cache or
        /// coalescing keyed the call (``CredentialIdentity``): its source
        /// changed in between. Nothing was sent, and nothing is shared —
        /// sharing fails closed. Not retried.
        public static let credentialMismatch = Code("credentialMismatch")
    }

    /// Where in the pipeline a call failed. Each names the stages of the
    /// pipeline it reports, numbered as in <doc:WhatACallGoesThrough>.
    public struct Stage: Hashable, Sendable, CustomStringConvertible {
        /// A stable identifier.
        public let rawValue: String

        /// Creates a stage; use the static members.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// A stable identifier.
        public var description: String { rawValue }

        /// Endpoint mapping, parameter interceptors and encoding (stages 1–3).
        public static let build = Stage("build")
        /// Interceptors and plugins: what they declare (4), per-call
        /// interceptors (5), per-attempt ones and plugins' hooks in an
        /// attempt (7), plugins' `process` (9).
        public static let interception = Stage("interception")
        /// The hops of an attempt (7): the transport sending the request and
        /// receiving the response, redirects, cookies.
        public static let transport = Stage("transport")
        /// Status code and content type validation, of an attempt's response
        /// (7) or of what the per-call chain returned (8).
        public static let validation = Stage("validation")
        /// Envelope validation (`code`/`msg`/`data`), where ``validation`` is.
        public static let envelope = Stage("envelope")
        /// Decoding the payload into the model (10), or a call cancelled
        /// after its response arrived (13).
        public static let decoding = Stage("decoding")
        /// Deciding whether and when to retry, in the attempt loop (7).
        public static let retry = Stage("retry")
        /// A response cache reading (6), or using (11), a stored response.
        public static let cache = Stage("cache")
        /// Response handlers, after decoding (12).
        public static let responseInterception = Stage("responseInterception")
    }
}
