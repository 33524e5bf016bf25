@_spi(Locking) @_spi(Transport) import CourierCore
import HTTPTypes

/// A resumable upload's part in each attempt (``/CourierCore/AttemptSlot``
/// `resumableUpload`): the request announces the upload; the upload's
/// resource comes from a `104` or from an empty creation request first;
/// when the exchange is cut, the rest goes to the resource from the server's
/// offset, at most ``ResumableUpload/maxResumes`` times. Every request passes
/// the steps after this one (plugins, the head check, the hops), so each is
/// logged, signed and checked like the call's own.
struct ResumableUploadStep: AttemptStep {
    let settings: ResumableUpload
    /// The transport cannot report a `104`: create the upload first.
    let createsFirst: Bool
    /// What a request to another origin's upload resource leaves out.
    let credentials: CredentialFields

    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        // Only a replayable body of known length can continue from an offset.
        guard let body = attempt.request.body, body.isReplayable, let length = body.length else {
            return try await next(&attempt, state)
        }
        let original = attempt.request
        let resource: UploadResource
        // Where the next part starts, when known without asking (0 right after a creation).
        var known: Int64?
        if createsFirst {
            resource = try await create(&attempt, state, next, length: length)
            known = 0
        } else {
            let announced = Locked<UploadResource?>(nil)
            attempt.request.head.headerFields.announceUpload(complete: true, length: length)
            attempt.options.interimResponse = { interim in
                guard interim.status.code == 104, let found = UploadResource(interim, of: original.head)
                else {
                    return
                }
                announced.withLock { $0 = found }
            }
            do throws(CourierError) {
                return try await next(&attempt, state)
            } catch  where Self.isCut(error) {
                guard let found = announced.withLock({ $0 }) else { throw error }
                resource = found
            }
            attempt.options.interimResponse = nil
        }
        // Each resume asks the offset and sends the rest; a cut in either counts.
        var resumes = 0
        while true {
            do throws(CourierError) {
                var offset = known ?? 0
                if known == nil {
                    offset = try await self.offset(&attempt, state, next, of: resource, original: original)
                }
                known = nil
                return try await append(&attempt, state, next, to: resource, from: offset, of: original)
            } catch  where Self.isCut(error) && resumes < settings.maxResumes {
                resumes += 1
            }
        }
    }

    /// Whether the exchange was cut (a reset, a close, a timeout) rather than
    /// answered or cancelled: what resuming is for.
    private static func isCut(_ error: CourierError) -> Bool {
        (error.code == .transport || error.code == .timedOut) && error.response == nil
    }

    /// An empty creation request (`Upload-Complete: ?0`): its `201` names the resource.
    private func create(
        _ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext, length: Int64
    ) async throws(CourierError) -> UploadResource {
        let original = attempt.request
        attempt.request.body = RequestBody(bytes: [])
        attempt.request.head.headerFields.announceUpload(complete: false, length: length)
        let created = try await next(&attempt, state)
        guard let resource = UploadResource(created.head, of: original.head) else {
            throw Self.refused(created, attempt, "answered the upload's creation without a Location")
        }
        return resource
    }

    /// `HEAD` on the resource: how many bytes the server has.
    private func offset(
        _ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext, of resource: UploadResource,
        original: OutgoingRequest
    ) async throws(CourierError) -> Int64 {
        attempt.request = resource.request(.head, from: original, credentials: credentials)
        let answer = try await next(&attempt, state)
        guard answer.statusCode / 100 == 2,
            let value = answer.head.headerFields[.uploadOffset], let offset = Int64(value), offset >= 0,
            offset <= original.body?.length ?? 0
        else {
            throw Self.refused(answer, attempt, "gave no usable Upload-Offset for the upload")
        }
        return offset
    }

    /// `PATCH` on the resource with the body from `offset`, the last part.
    private func append(
        _ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext, to resource: UploadResource,
        from offset: Int64, of original: OutgoingRequest
    ) async throws(CourierError) -> RawResponse {
        attempt.request = resource.request(.patch, from: original, credentials: credentials)
        attempt.request.body = original.body?.remainder(after: offset)
        var fields = attempt.request.head.headerFields
        fields[.uploadOffset] = String(offset)
        fields[.uploadComplete] = "?1"
        fields[.contentType] = "application/partial-upload"
        attempt.request.head.headerFields = fields
        return try await next(&attempt, state)
    }

    private static func refused(_ answer: RawResponse, _ attempt: Attempt, _ what: String) -> CourierError {
        CourierError(
            .transport, stage: .transport,
            message: "the server \(what) (status \(answer.statusCode)): does it speak resumable uploads?",
            request: attempt.request.head, response: answer, attempt: attempt.number)
    }
}

/// The upload resource a server named, by `Location`.
struct UploadResource: Sendable {
    let scheme: String
    let authority: String
    let path: String

    /// The resource `response` names, resolved against the request's URL.
    init?(_ response: HTTPResponse, of request: HTTPRequest) {
        guard let location = response.headerFields[.location], !location.isEmpty,
            let scheme = request.scheme, let authority = request.authority
        else { return nil }
        if location.hasPrefix("/") {
            (self.scheme, self.authority, self.path) = (scheme, authority, location)
        } else if let split = location.firstRange(of: "://") {
            let rest = location[split.upperBound...]
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            (self.scheme, self.authority) = (
                String(location[..<split.lowerBound]).lowercased(), String(rest[..<slash])
            )
            self.path = slash == rest.endIndex ? "/" : String(rest[slash...])
        } else {
            return nil
        }
    }

    /// A request to the resource with `original`'s fields but its content
    /// ones; to another origin, without the credential fields.
    func request(_ method: HTTPRequest.Method, from original: OutgoingRequest, credentials: CredentialFields)
        -> OutgoingRequest
    {
        var fields = original.head.headerFields
        for name in [
            HTTPField.Name.contentType, .contentLength, .contentEncoding, .uploadComplete, .uploadLength,
        ] {
            fields[name] = nil
        }
        if scheme != original.head.scheme || authority != original.head.authority {
            fields = credentials.removed(from: fields)
        }
        return OutgoingRequest(
            head: HTTPRequest(
                method: method, scheme: scheme, authority: authority, path: path, headerFields: fields))
    }
}

extension HTTPField.Name {
    static let uploadComplete = field("Upload-Complete")
    static let uploadOffset = field("Upload-Offset")
    static let uploadLength = field("Upload-Length")
    static let uploadDraftInteropVersion = field("Upload-Draft-Interop-Version")

    /// A name written here, valid by sight (a token).
    private static func field(_ name: String) -> Self {
        guard let field = Self(name) else { preconditionFailure("\(name) is not a field name") }
        return field
    }
}

extension HTTPFields {
    /// The creation request's fields: whether the body is the whole upload,
    /// its length, and the draft's interop version (6, draft -05's, which
    /// URLSession sends).
    mutating func announceUpload(complete: Bool, length: Int64) {
        self[.uploadComplete] = complete ? "?1" : "?0"
        self[.uploadLength] = String(length)
        self[.uploadDraftInteropVersion] = "6"
    }
}
