import CourierCache
import CourierCore
import HTTPTypes

/// RFC 9111 §3: what may be stored, and how.
extension CacheRequirement {
    static let fresh = ["Cache-Control": "max-age=600"]

    static var storing: [CacheRequirement] {
        [
            CacheRequirement(
                "RFC 9111 §3", .mustNot,
                "store a response to a method the cache does not understand as cacheable",
                stubs: [.versions("s/post", fresh)]
            ) { lab in
                for _ in 0..<2 { try await lab.send(lab.endpoint("s/post", method: .post)) }
                try await lab.send(lab.endpoint("s/post", method: .init("M-SEARCH") ?? .post))
                try lab.require(
                    lab.requests("s/post").count == 3, "a POST or M-SEARCH was answered from storage")
            },
            CacheRequirement(
                "RFC 9111 §3", .mustNot, "store a response whose status is not final (1xx)",
                notApplicable:
                    "every transport consumes interim responses (100, 103) before the pipeline sees the final one"
            ),
            CacheRequirement(
                "RFC 9111 §3", .mustNot, "store a 206 or a 304 unless it understands them",
                stubs: [
                    CacheLab.Stub(
                        "s/range", when: ["Range": "bytes=-2"], priority: 1,
                        [(206, fresh.merging(["Content-Range": "bytes 1-2/3"]) { $1 }, "v2")]),
                    .versions("s/range", fresh),
                ]
            ) { lab in
                _ = try await lab.get("s/range", [.range: "bytes=-2"])
                try lab.require(
                    !(try await lab.get("s/range", [.range: "bytes=-2"])).stored, "a 206 was stored")
                let whole = try await lab.get("s/range")
                try lab.require(
                    whole.body == "v1" && !whole.stored, "a stored 206 answered a plain GET: \(whole)")
            },
            CacheRequirement(
                "RFC 9111 §3", .mustNot, "store a 304 the caller's own conditional request got",
                stubs: [
                    CacheLab.Stub(
                        "s/own-304", when: ["If-None-Match": "\"mine\""], priority: 1,
                        [(304, fresh.merging(["ETag": "\"mine\""]) { $1 }, "")]),
                    .versions("s/own-304", fresh.merging(["ETag": "\"mine\""]) { $1 }),
                ]
            ) { lab in
                // Read nothing, keep what HTTP allows, and take a 304 as an answer.
                let conditional = lab.endpoint(
                    "s/own-304", [.ifNoneMatch: "\"mine\""], read: .none, validation: .anyStatus
                ) { $0.followsHTTPHeaders = true }
                try await lab.send(conditional)
                await lab.cache.settle()
                let plain = try await lab.get("s/own-304")
                try lab.require(plain.body == "v1" && !plain.stored, "a stored 304 answered: \(plain)")
            },
            CacheRequirement(
                "RFC 9111 §3, §5.2.2.5", .mustNot,
                "store a response with no-store, or use it for another request",
                stubs: [.versions("s/no-store", ["Cache-Control": "no-store, max-age=600"])]
            ) { lab in
                _ = try await lab.get("s/no-store")
                try lab.require(
                    !(try await lab.get("s/no-store")).stored, "a no-store response was used again")
            },
            CacheRequirement(
                "RFC 9111 §5.2.1.5", .mustNot, "store any part of a request with no-store, or its response",
                stubs: [.versions("s/request-no-store", fresh)]
            ) { lab in
                _ = try await lab.get("s/request-no-store", [.cacheControl: "no-store"])
                try lab.require(
                    !(try await lab.get("s/request-no-store")).stored, "stored despite the request's no-store"
                )
            },
            CacheRequirement(
                "RFC 9111 §3, §5.2.2.7", .mustNot, "in a shared cache, store a private response",
                stubs: [.versions("s/private", ["Cache-Control": "private, max-age=600"])], sharing: .shared
            ) { lab in
                _ = try await lab.get("s/private")
                try lab.require(
                    !(try await lab.get("s/private")).stored, "a shared cache kept a private response")
            },
            CacheRequirement(
                "RFC 9111 §5.2.2.7", .mustNot,
                "in a shared cache, store the fields a qualified private names (Courier: the whole response)",
                stubs: [
                    .versions(
                        "s/private-field",
                        ["Cache-Control": "private=\"X-User\", max-age=600", "X-User": "ada"])
                ],
                sharing: .shared
            ) { lab in
                _ = try await lab.get("s/private-field")
                try lab.require(!(try await lab.get("s/private-field")).stored, "a shared cache kept X-User")
            },
            CacheRequirement(
                "RFC 9111 §3, §3.5", .mustNot,
                "in a shared cache, use a response to an authorised request without public, s-maxage or must-revalidate",
                stubs: [
                    .versions("s/authorised", fresh),
                    .versions("s/authorised-public", ["Cache-Control": "public, max-age=600"]),
                ],
                sharing: .shared
            ) { lab in
                let bearer: HTTPFields = [.authorization: "Bearer t"]
                func call(_ path: String) async throws -> Bool {
                    try await lab.send(lab.endpoint(path, bearer) { $0.storesCredentialedResponses = true })
                        .attempts == 0
                }
                _ = try await call("s/authorised")
                try lab.require(
                    try await !call("s/authorised"), "kept without public, s-maxage or must-revalidate")
                _ = try await call("s/authorised-public")
                try lab.require(
                    try await call("s/authorised-public"),
                    "a public response to an authorised request was not kept")
            },
            CacheRequirement(
                "RFC 9111 §3", .mustNot,
                "store a response without explicit freshness or validator whose status is not heuristically cacheable",
                stubs: [CacheLab.Stub("s/accepted", (1...3).map { (202, [:], "v\($0)") })]
            ) { lab in
                _ = try await lab.get("s/accepted")
                try lab.require(
                    !(try await lab.get("s/accepted")).stored, "a 202 without freshness was used again")
            },
            CacheRequirement(
                "RFC 9111 §3.1", .must, "store every received header field, unrecognised ones included",
                stubs: [
                    CacheLab.Stub(
                        "s/fields", fresh.merging(["X-Unheard-Of": "kept", "Link": "</a>; rel=next"]) { $1 })
                ]
            ) { lab in
                _ = try await lab.get("s/fields")
                let reply = try await lab.send(lab.endpoint("s/fields"))
                let fields = reply.model.headerFields
                try lab.require(
                    reply.attempts == 0 && fields[HTTPField.Name("X-Unheard-Of") ?? .accept] == "kept"
                        && fields[HTTPField.Name("Link") ?? .accept] != nil,
                    "stored fields lost: \(fields)")
            },
            CacheRequirement(
                "RFC 9111 §3.1", .mustNot,
                "store Proxy-Authenticate, Proxy-Authentication-Info or Proxy-Authorization",
                stubs: [
                    CacheLab.Stub(
                        "s/proxy",
                        fresh.merging(["Proxy-Authenticate": "Basic", "Proxy-Authentication-Info": "x"]) {
                            $1
                        })
                ]
            ) { lab in
                _ = try await lab.get("s/proxy")
                let reply = try await lab.send(lab.endpoint("s/proxy"))
                let names = reply.model.headerFields.map(\.name.canonicalName)
                try lab.require(reply.attempts == 0, "not answered from storage")
                try lab.require(!names.contains { $0.hasPrefix("proxy-") }, "stored: \(names)")
            },
            CacheRequirement(
                "RFC 9111 §3.1", .mustNot, "combine trailer fields with header fields",
                notApplicable:
                    "no transport hands trailer fields to the pipeline: they are never seen, so never combined"
            ),
            CacheRequirement(
                "RFC 9111 §3.3", .mustNot, "use an incomplete response to answer a request",
                stubs: [
                    {
                        var stub = CacheLab.Stub("s/cut", fresh, body: String(repeating: "v1", count: 32))
                        stub.fault = ("closeMidBody", 2)
                        return stub
                    }()
                ]
            ) { lab in
                // The connection closes 2 bytes into 64: every transport fails the call.
                for _ in 0..<2 {
                    do {
                        try await lab.send(lab.endpoint("s/cut"))
                        throw Unmet("a cut body was delivered as whole")
                    } catch let error as CourierError {
                        try lab.require(error.code != .cache, "\(error)")
                    }
                }
                try lab.require(lab.requests("s/cut").count >= 2, "a cut body was stored and used")
            },
            CacheRequirement(
                "RFC 9111 §3.3", .mustNot, "send a partial response without marking it 206",
                notApplicable: "the cache never keeps or builds partial responses (see the 206 row above)"),
        ]
    }
}
