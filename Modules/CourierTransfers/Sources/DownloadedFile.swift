@_spi(Transport) public import CourierCore
public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A file a download endpoint wrote.
public struct DownloadedFile: Sendable, Hashable {
    /// Where the file is: always the whole file.
    public var url: URL
    /// The response status: 206 when the download continued bytes kept
    /// from an interrupted one (``DownloadDestination/Options/resumable``).
    public var statusCode: Int
    /// How many of the file's bytes came from earlier, interrupted
    /// transfers rather than this response; 0 for a download in one go.
    public var resumedFrom: Int64

    /// Creates a value.
    public init(url: URL, statusCode: Int, resumedFrom: Int64 = 0) {
        self.url = url
        self.statusCode = statusCode
        self.resumedFrom = resumedFrom
    }
}

extension ResponseSerializer where Response == DownloadedFile {
    /// The file the transport wrote.
    public static var downloadedFile: Self {
        .map { response in
            guard case .file(let url) = response.body else {
                throw CourierError(
                    .decoding, stage: .decoding,
                    message: "the transport kept the body in memory instead of writing the download to a file"
                )
            }
            let resumedFrom =
                response.statusCode == 206
                ? ContentRange(response.headerFields[.contentRange])?.first ?? 0 : 0
            return DownloadedFile(url: url, statusCode: response.statusCode, resumedFrom: resumedFrom)
        }
    }
}

extension Endpoint where Response == DownloadedFile {
    /// Creates an endpoint that downloads the body to a file.
    ///
    /// The body streams to a hidden file beside the destination and is moved
    /// to the destination only when the transfer is complete and the response
    /// passed validation. Every failure — a reset, a limit, a status or an
    /// interceptor's error — removes it; a failed response's body (its first
    /// MiB) is in the error's ``/CourierCore/CourierError/response`` in memory. A file
    /// already at the destination fails the call before anything is sent,
    /// unless ``DownloadDestination/Options/removePreviousFile`` allows
    /// replacing it. With ``DownloadDestination/Options/resumable``, an
    /// interrupted transfer is kept instead and continued by the next
    /// attempt or call:
    ///
    /// ```swift
    /// let destination = DownloadDestination(file, options: [.createIntermediateDirectories, .resumable])
    /// let download = Endpoint<DownloadedFile>.download(.get("files/big.iso"), on: node, to: destination)
    /// let file = try await client.send(download)  // after a reset: the next send continues
    /// print(file.resumedFrom)                      // bytes that were already here
    /// ```
    public static func download(
        _ route: Route, on node: Node, to destination: DownloadDestination, query: Parameters = .empty,
        headers: HTTPFields = [:]
    ) -> Endpoint {
        var spec = EndpointSpec(route: route, node: node, query: query, headers: headers)
        spec.downloadTarget = destination.target
        spec.envelope = .none
        return Endpoint(spec: spec, serializer: .downloadedFile)
    }
}
