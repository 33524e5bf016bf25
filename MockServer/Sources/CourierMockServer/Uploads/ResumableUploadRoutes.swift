import NIOHTTP1

/// The answers of resumable uploads (``ResumableUploads``), once a request's
/// body is in (the connection handler kept its bytes as they arrived):
///
/// - `POST /resumable` with `Upload-Complete: ?1`: the whole body arrived,
///   `200` with `{"bytes", "sha256"}` of it (as `/upload` answers); with
///   `?0`: `201` naming the resource in `Location`, with `Upload-Offset`.
/// - `HEAD /resumable/{id}`: `204` with `Upload-Offset`, `Upload-Complete`,
///   `Upload-Length` when known, `Cache-Control: no-store`.
/// - `PATCH /resumable/{id}` (`application/partial-upload`, `Upload-Offset`):
///   `409` (a problem, `mismatching-upload-offset`) when the offset is not
///   the server's; `400` (`completed-upload`) after the end; else `200` with
///   the digest when `Upload-Complete: ?1`, `204` with the new offset when not.
/// - `DELETE /resumable/{id}`: `204`.
enum ResumableUploadRoutes {
    static let prefix = "/resumable"

    /// The upload a request names, and whether it creates one.
    static func target(method: String, path: String) -> (id: Int?, creates: Bool)? {
        if path == prefix { return method == "POST" ? (nil, true) : nil }
        guard path.hasPrefix(prefix + "/"), let id = Int(path.dropFirst(prefix.count + 1)) else { return nil }
        return (id, false)
    }

    /// What the connection handler learnt of an upload request on its way in.
    struct Mark: Sendable {
        /// The upload it names, or made; `nil` for none.
        var id: Int?
        /// It creates the upload.
        var creates: Bool
        /// A `PATCH` whose `Upload-Offset` was not the upload's: its bytes were not kept.
        var mismatch = false
    }

    static func answer(_ request: RecordedRequest, mark: Mark, uploads: ResumableUploads) -> BuiltinAnswer {
        let route = mark.creates ? prefix : prefix + "/{id}"
        func answer(_ response: StubResponse) -> BuiltinAnswer {
            BuiltinAnswer(route: route, response: response)
        }
        guard let id = mark.id, let upload = uploads.upload(id) else {
            return answer(problem(404, "unknown-upload", "no upload at \(request.path)"))
        }
        let location = [("Location", "\(prefix)/\(id)")]
        let complete = request.header("Upload-Complete") == "?1"
        switch request.method {
        case "POST":
            guard complete else {
                return answer(
                    StubResponse(
                        status: 201, headers: location + [("Upload-Offset", "\(upload.bytes.count)")]))
            }
            uploads.complete(id)
            return answer(digest(upload.bytes, headers: location))
        case "HEAD":
            var headers = [
                ("Upload-Offset", "\(upload.bytes.count)"),
                ("Upload-Complete", upload.complete ? "?1" : "?0"),
                ("Cache-Control", "no-store"),
            ]
            if let length = upload.length { headers.append(("Upload-Length", "\(length)")) }
            return answer(StubResponse(status: 204, headers: headers))
        case "PATCH":
            if mark.mismatch || upload.complete {
                return answer(
                    upload.complete
                        ? problem(400, "completed-upload", "the upload is complete")
                        : problem(409, "mismatching-upload-offset", "the upload is at \(upload.bytes.count)"))
            }
            guard complete else {
                return answer(
                    StubResponse(status: 204, headers: [("Upload-Offset", "\(upload.bytes.count)")]))
            }
            uploads.complete(id)
            return answer(digest(upload.bytes, headers: []))
        case "DELETE":
            _ = uploads.remove(id)
            return answer(StubResponse(status: 204))
        default:
            return answer(StubResponse(status: 405, headers: [("Allow", "HEAD, PATCH, DELETE")]))
        }
    }

    private static func digest(_ bytes: [UInt8], headers: [(name: String, value: String)]) -> StubResponse {
        var response = StubResponse.json(
            .object(["bytes": .int(Int64(bytes.count)), "sha256": .string(SHA256Digest.hex(of: bytes))]))
        response.headers += headers
        return response
    }

    private static func problem(_ status: Int, _ type: String, _ detail: String) -> StubResponse {
        StubResponse(
            status: status, headers: [("Content-Type", "application/problem+json")],
            body: JSONValue.object([
                "type": .string("https://iana.org/assignments/http-problem-types#\(type)"),
                "title": .string(detail),
            ]).jsonBytes)
    }
}

extension Dispatcher {
    /// A resumable upload's answer (``ResumableUploadRoutes``), journaled like a built-in route's.
    func answer(_ request: RecordedRequest, upload: ResumableUploadRoutes.Mark) -> Answer {
        let builtin = ResumableUploadRoutes.answer(request, mark: upload, uploads: core.uploads)
        let plan = ResponsePlan.make(builtin.response, delayMs: 0, keepAlive: Self.keepsAlive(request))
        var fields = JournalFields(status: plan.status)
        fields.builtinRoute = builtin.route
        fields.response = RecordedResponse(planned: builtin.response)
        return Answer(plan: plan, journal: fields)
    }
}

extension ResumableUploadRoutes {
    /// On a request's head: the upload it names or makes (`nil` when it is
    /// no resumable upload's), and the `104 (Upload Resumption Supported)`
    /// to send at once when it creates one with its whole body.
    static func start(_ head: HTTPRequestHead, uploads: ResumableUploads) -> (mark: Mark, interim: String?)? {
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        guard let target = target(method: head.method.rawValue, path: path) else { return nil }
        guard target.creates else {
            var mark = Mark(id: target.id, creates: false)
            if head.method == .PATCH, let id = target.id, let upload = uploads.upload(id) {
                mark.mismatch = head.headers["Upload-Offset"].first != String(upload.bytes.count)
            }
            return (mark, nil)
        }
        guard let complete = head.headers["Upload-Complete"].first else { return nil }
        let query = parts.count > 1 ? FormDecoding.pairs(String(parts[1])) : []
        let cuts = query.first { $0.name == "cutAt" }.map {
            $0.value.split(separator: ",").compactMap { Int($0) }
        }
        let length = head.headers["Upload-Length"].first.flatMap { Int64($0) }
        let id = uploads.create(length: length, cuts: cuts ?? [])
        let interim =
            complete == "?1"
            ? "HTTP/1.1 104 Upload Resumption Supported\r\nLocation: \(prefix)/\(id)\r\n"
                + "Upload-Draft-Interop-Version: 6\r\nUpload-Offset: 0\r\n\r\n"
            : nil
        return (Mark(id: id, creates: true), interim)
    }
}
