@_spi(Transport) public import CourierCore

/// How an endpoint's body goes up as a resumable upload (the IETF's
/// draft-ietf-httpbis-resumable-upload, which URLSession speaks on Apple
/// platforms): when the connection drops mid-body, the client asks the
/// server how much arrived and sends only the rest, instead of starting over.
///
/// The request announces itself with `Upload-Complete` and `Upload-Length`.
/// A server that supports the protocol answers with an upload resource: in a
/// `104 (Upload Resumption Supported)` interim response on CurlTransport,
/// which reports interim responses; on a transport that cannot (URLSession,
/// AsyncHTTPClientTransport), the client first creates the upload with an
/// empty request (`Upload-Complete: ?0`) and then sends the body to the
/// resource with `PATCH`. After a cut, `HEAD` on the resource tells its
/// `Upload-Offset`, and a `PATCH` (`application/partial-upload`) carries the
/// rest. The final response is the one the endpoint describes.
///
/// Turn it on only for a server that speaks the protocol: a server that
/// does not would take the empty creation request for the upload itself.
/// The body must be replayable (bytes, a file, a form of them); a stream is
/// sent as usual and cannot resume.
public struct ResumableUpload: Sendable, Hashable {
    /// How many times one attempt resumes after a cut before it fails with
    /// the cut's error (the retry policy may then start over): 5 by default.
    public var maxResumes: Int

    /// Resumable-upload settings.
    public init(maxResumes: Int = 5) {
        self.maxResumes = max(0, maxResumes)
    }
}

/// The setting on an endpoint, and the step it adds to the endpoint's calls.
struct ResumableUploadAttachment: ClientExtension {
    enum Key: EndpointAttachmentKey { typealias Value = ResumableUploadAttachment }

    let settings: ResumableUpload

    func attemptSteps(for spec: EndpointSpec, in configuration: APIClient.Configuration)
        -> [(slot: AttemptSlot, step: any AttemptStep)]
    {
        let interim = (configuration.transport as? any InterimResponseTransport)?.reportsInterimResponses
        let step = ResumableUploadStep(
            settings: settings, createsFirst: interim != true, credentials: configuration.credentialFields)
        return [(.resumableUpload, step)]
    }
}

extension EndpointSpec {
    /// Whether, and how, the body goes up as a resumable upload; `nil`
    /// (an ordinary upload) by default. See ``ResumableUpload``.
    public var resumableUpload: ResumableUpload? {
        get { attachments[ResumableUploadAttachment.Key.self]?.settings }
        set { attachments[ResumableUploadAttachment.Key.self] = newValue.map(ResumableUploadAttachment.init) }
    }
}

extension Endpoint {
    /// A copy whose body goes up as a resumable upload: see ``ResumableUpload``.
    /// - Parameter settings: How often an attempt may resume.
    /// - Returns: The endpoint, resumable.
    public func resumable(_ settings: ResumableUpload = ResumableUpload()) -> Endpoint {
        var copy = self
        copy.spec.resumableUpload = settings
        return copy
    }
}
