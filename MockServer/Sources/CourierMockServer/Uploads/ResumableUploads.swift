import NIOConcurrencyHelpers

/// The server side of resumable uploads (draft-ietf-httpbis-resumable-upload):
/// upload resources at `/resumable/{id}`, each holding the bytes received so
/// far — kept as they arrive, so a connection cut mid-body leaves them for
/// the client's `HEAD` to find. `POST /resumable?cutAt=N,M` creates one
/// whose connections are reset once the upload holds N, then M bytes: a
/// network drop, at a place a test chooses.
final class ResumableUploads: Sendable {
    struct Upload {
        var bytes: [UInt8] = []
        var length: Int64?
        var complete = false
        /// Totals at which the connection carrying the body is reset, in order.
        var cuts: [Int]
    }

    private let uploads = NIOLockedValueBox<(next: Int, byID: [Int: Upload])>((1, [:]))

    /// A new upload; its id.
    func create(length: Int64?, cuts: [Int]) -> Int {
        uploads.withLockedValue { state in
            let id = state.next
            state.next += 1
            state.byID[id] = Upload(length: length, cuts: cuts.sorted())
            return id
        }
    }

    /// The upload with `id`, if there is one.
    func upload(_ id: Int) -> Upload? { uploads.withLockedValue { $0.byID[id] } }

    /// Keeps `bytes` arrived for `id`, up to its next cut.
    /// - Returns: Whether the connection must now be reset (a cut was reached).
    func append(_ bytes: UnsafeRawBufferPointer, to id: Int) -> Bool {
        uploads.withLockedValue { state in
            guard var upload = state.byID[id], !upload.complete else { return false }
            var take = bytes.count
            var cut = false
            if let next = upload.cuts.first, upload.bytes.count + take >= next {
                take = max(0, next - upload.bytes.count)
                upload.cuts.removeFirst()
                cut = true
            }
            upload.bytes.append(contentsOf: bytes.prefix(take))
            state.byID[id] = upload
            return cut
        }
    }

    /// Marks `id` complete.
    func complete(_ id: Int) {
        uploads.withLockedValue { $0.byID[id]?.complete = true }
    }

    /// Forgets `id`.
    func remove(_ id: Int) -> Bool {
        uploads.withLockedValue { $0.byID.removeValue(forKey: id) != nil }
    }
}
