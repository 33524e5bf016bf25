import CourierCache
import CourierCore
import HTTPTypes

/// RFC 9111 §5: the header fields and cache directives; RFC 5861's
/// extensions; RFC 9110 §13 where a client cache generates conditions.
extension CacheRequirement {
    static var directives: [CacheRequirement] {
        [
            CacheRequirement(
                "RFC 9111 §5.1", .should, "use the first member of a list-valued Age",
                stubs: [.versions("d/age-list", ["Cache-Control": "max-age=3600", "Age": "7200, 0"])]
            ) { lab in
                _ = try await lab.get("d/age-list")
                try lab.require(!(try await lab.get("d/age-list")).stored, "Age: 7200, 0 read as fresh")
            },
            CacheRequirement(
                "RFC 9111 §5.1", .should, "ignore an Age that is not a non-negative integer",
                stubs: [.versions("d/age-bad", ["Cache-Control": "max-age=3600", "Age": "old"])]
            ) { lab in
                _ = try await lab.get("d/age-bad")
                try lab.require(
                    try await lab.get("d/age-bad").stored, "an invalid Age made the response stale")
            },
            CacheRequirement(
                "RFC 9111 §5.2", .must, "pass cache directives through in forwarded messages",
                notApplicable: "Courier is the client, not a proxy: it forwards nothing"),
            CacheRequirement(
                "RFC 9111 §5.2.1.7", .should, "answer only-if-cached with a stored response or a 504",
                stubs: [.versions("d/only", ["Cache-Control": "max-age=60"])]
            ) { lab in
                let onlyCached: HTTPFields = [.cacheControl: "only-if-cached"]
                try await lab.requireFailure(
                    "d/only", onlyCached, status: 504, "answered with nothing stored")
                _ = try await lab.get("d/only")
                try lab.require(
                    try await lab.get("d/only", onlyCached).stored, "the stored response did not answer")
                try lab.require(lab.requests("d/only").count == 1, "only-if-cached reached the network")
            },
            CacheRequirement(
                "RFC 9111 §5.2.2.2", .mustNot, "reuse a stale must-revalidate response without validating it",
                stubs: [.versions("d/must", ["Cache-Control": "max-age=60, must-revalidate"])]
            ) { lab in
                _ = try await lab.get("d/must")
                lab.advance(61)
                try lab.require(
                    !(try await lab.get("d/must", [.cacheControl: "max-stale=600"])).stored, "served stale")
            },
            CacheRequirement(
                "RFC 9111 §5.2.2.2", .must,
                "fail rather than reuse a stale must-revalidate response when disconnected",
                stubs: [
                    CacheLab.Stub(
                        "d/must-down",
                        [(200, ["Cache-Control": "max-age=60, must-revalidate, stale-if-error=600"], "v1")]),
                    {
                        var down = CacheLab.Stub(
                            "d/must-down", when: ["X-Down": "yes"], priority: 1, [(200, [:], "")])
                        down.fault = ("resetBeforeHeaders", nil)
                        return down
                    }(),
                ]
            ) { lab in
                _ = try await lab.get("d/must-down")
                lab.advance(61)
                try await lab.requireFailure(
                    "d/must-down", HTTPFields.named([("X-Down", "yes")]), status: nil,
                    "served stale while disconnected")
            },
            CacheRequirement(
                "RFC 9111 §5.2.2.2", .should, "make that error a 504",
                notApplicable:
                    "Courier fails the call with the typed transport error itself (`transport`, `timedOut`), which says more than a made-up 504; no response is generated"
            ),
            CacheRequirement(
                "RFC 9111 §5.2.2.3", .mustNot,
                "store, under must-understand, a status it does not understand",
                stubs: [
                    CacheLab.Stub(
                        "d/unknown-status",
                        (1...3).map { (299, ["Cache-Control": "max-age=600, must-understand"], "v\($0)") }),
                    .versions("d/understand", ["Cache-Control": "max-age=600, must-understand, no-store"]),
                ]
            ) { lab in
                // 299 is no status RFC 9110 defines: not stored, whatever its freshness.
                _ = try await lab.get("d/unknown-status")
                try lab.require(!(try await lab.get("d/unknown-status")).stored, "a 299 was stored")
                // 200 is understood, so no-store — meant for caches that do not understand — is set aside.
                _ = try await lab.get("d/understand")
                try lab.require(
                    try await lab.get("d/understand").stored, "must-understand with 200 was not stored")
            },
            CacheRequirement(
                "RFC 9111 §5.2.2.4", .mustNot, "use a no-cache response without validating it",
                stubs: [
                    .versions("d/no-cache", ["Cache-Control": "max-age=600, no-cache"]),
                    .versions("d/no-cache-field", ["Cache-Control": "max-age=600, no-cache=\"X-Secret\""]),
                ]
            ) { lab in
                for path in ["d/no-cache", "d/no-cache-field"] {
                    _ = try await lab.get(path)
                    try lab.require(!(try await lab.get(path)).stored, "\(path) used without validation")
                }
            },
            CacheRequirement(
                "RFC 9111 §5.2.2.6", .mustNot, "transform content marked no-transform",
                notApplicable: "the rule binds intermediaries; Courier is the recipient and forwards nothing"),
            CacheRequirement(
                "RFC 9111 §5.2.2.8", .must, "apply proxy-revalidate in a shared cache only",
                stubs: [.versions("d/proxy-revalidate", ["Cache-Control": "max-age=60, proxy-revalidate"])]
            ) { lab in
                _ = try await lab.get("d/proxy-revalidate")
                lab.advance(100)
                try lab.require(
                    try await lab.get("d/proxy-revalidate", [.cacheControl: "max-stale"]).stored,
                    "a private cache obeyed proxy-revalidate")
            },
            CacheRequirement(
                "RFC 9111 §5.2.2.10", .mustNot,
                "in a shared cache, use a response past its s-maxage without validating it",
                stubs: [.versions("d/s-maxage", ["Cache-Control": "max-age=600, s-maxage=10"])],
                sharing: .shared
            ) { lab in
                _ = try await lab.get("d/s-maxage")
                lab.advance(20)
                try lab.require(!(try await lab.get("d/s-maxage")).stored, "used past s-maxage")
            },
            CacheRequirement(
                "RFC 9111 §5.3", .must,
                "treat an invalid Expires (\"0\", another date format) as in the past",
                stubs: [
                    .versions("d/expires-zero", ["Expires": "0"]),
                    .versions("d/expires-utc", ["Expires": "Sun, 06 Nov 1994 09:49:37 UTC"]),
                ]
            ) { lab in
                for path in ["d/expires-zero", "d/expires-utc"] {
                    _ = try await lab.get(path)
                    try lab.require(!(try await lab.get(path)).stored, "\(path) read as fresh")
                }
            },
            CacheRequirement(
                "RFC 9111 §5.3", .must,
                "ignore Expires when max-age is present (and, in a shared cache, s-maxage)",
                stubs: [
                    .versions(
                        "d/expires-max-age",
                        ["Cache-Control": "max-age=0", "Expires": "Sun, 06 Nov 1994 09:49:37 GMT"])
                ]
            ) { lab in
                _ = try await lab.get("d/expires-max-age")
                try lab.require(
                    !(try await lab.get("d/expires-max-age")).stored, "Expires overrode max-age=0")
            },
            CacheRequirement(
                "RFC 9111 §5.4", .must,
                "take Pragma: no-cache as Cache-Control: no-cache when a request has no Cache-Control",
                stubs: [.versions("d/pragma", fresh)]
            ) { lab in
                _ = try await lab.get("d/pragma")
                let pragma = HTTPFields.named([("Pragma", "no-cache")])
                try lab.require(!(try await lab.get("d/pragma", pragma)).stored, "Pragma: no-cache ignored")
            },
        ]
    }

    /// RFC 5861 and RFC 9110 §13.
    static var extensions: [CacheRequirement] {
        [
            CacheRequirement(
                "RFC 5861 §3", .should,
                "revalidate in the background while serving within stale-while-revalidate",
                stubs: [.versions("x/swr", ["Cache-Control": "max-age=60, stale-while-revalidate=600"])]
            ) { lab in
                _ = try await lab.get("x/swr")
                lab.advance(100)
                let stale = try await lab.get("x/swr")
                try lab.require(stale.stored && stale.body == "v1", "not served stale: \(stale)")
                await lab.cache.settle()
                try lab.require(lab.requests("x/swr").count == 2, "no background revalidation")
                try lab.require(try await lab.get("x/swr").body == "v2", "the refresh was not stored")
            },
            CacheRequirement(
                "RFC 5861 §4", .shouldNot, "serve within stale-if-error once more stale than it allows",
                stubs: [
                    CacheLab.Stub(
                        "x/sie",
                        [
                            (200, ["Cache-Control": "max-age=60, stale-if-error=100"], "v1"),
                            (503, [:], "down"),
                        ])
                ]
            ) { lab in
                _ = try await lab.get("x/sie")
                lab.advance(120)
                let within = try await lab.get("x/sie")
                try lab.require(within.body == "v1", "not served on error within the grace: \(within)")
                lab.advance(100)
                try await lab.requireFailure("x/sie", status: 503, "served past stale-if-error")
            },
            CacheRequirement(
                "RFC 5861 §4", .should,
                "keep a response served stale visibly stale (its Age past its lifetime)",
                stubs: [
                    CacheLab.Stub(
                        "x/visible",
                        [(200, ["Cache-Control": "max-age=60, stale-if-error=600"], "v1"), (500, [:], "")])
                ]
            ) { lab in
                _ = try await lab.get("x/visible")
                lab.advance(90)
                let reply = try await lab.send(lab.endpoint("x/visible"))
                let age = reply.model.headerFields[.age].flatMap { Int($0) } ?? 0
                try lab.require(age >= 90, "Age \(age)")
            },
            CacheRequirement(
                "RFC 9110 §13.1.5", .mustNot, "send If-Range without Range, or with a weak entity tag",
                notApplicable:
                    "the cache sends no If-Range; resumable downloads send it only with Range and a strong ETag (or a date), tested in DownloadResumeTests"
            ),
            CacheRequirement(
                "RFC 9110 §13.2.1", .must, "evaluate received preconditions in RFC 9110's order",
                notApplicable:
                    "the cache evaluates no preconditions: it forwards the caller's own (see the §4.3.2 row) and generates only its validators"
            ),
        ]
    }
}
