import CourierCache
import CourierCore
import HTTPTypes

/// RFC 9111 §4–§4.2 and §4.4: when a stored response may answer.
extension CacheRequirement {
    static var reuse: [CacheRequirement] {
        [
            CacheRequirement(
                "RFC 9111 §4", .mustNot, "reuse a stored response for another target URI",
                stubs: [.versions("r/a", fresh), .versions("r/b", fresh)]
            ) { lab in
                _ = try await lab.get("r/a")
                try lab.require(!(try await lab.get("r/b")).stored, "r/b got r/a's response")
                let paged = Endpoint<RawResponse>(.get("r/a"), on: lab.node, query: ["page": 2]).cache(.http)
                try lab.require(
                    try await lab.send(paged).attempts == 1, "another query got the stored response")
            },
            CacheRequirement(
                "RFC 9111 §4", .mustNot, "reuse a stored response for a method it does not answer",
                stubs: [.versions("r/method", fresh)]
            ) { lab in
                _ = try await lab.get("r/method")
                try await lab.send(lab.endpoint("r/method", method: .delete))
                try lab.require(lab.requests("r/method").count == 2, "a DELETE was answered from storage")
            },
            CacheRequirement(
                "RFC 9111 §4", .mustNot,
                "reuse a stored response unless it is fresh, allowed stale, or validated",
                stubs: [.versions("r/stale", ["Cache-Control": "max-age=60"])]
            ) { lab in
                _ = try await lab.get("r/stale")
                try lab.require(try await lab.get("r/stale").stored, "a fresh response was not used")
                lab.advance(61)
                let stale = try await lab.get("r/stale")
                try lab.require(!stale.stored && stale.body == "v2", "a stale response was used: \(stale)")
            },
            CacheRequirement(
                "RFC 9111 §4", .must,
                "generate Age, replacing any stored one, when using a response without validation",
                stubs: [CacheLab.Stub("r/age", ["Cache-Control": "max-age=600", "Age": "100"])]
            ) { lab in
                _ = try await lab.get("r/age")
                lab.advance(30)
                let reply = try await lab.send(lab.endpoint("r/age"))
                let ages = reply.model.headerFields[values: .age]
                try lab.require(reply.attempts == 0 && ages == ["130"], "Age: \(ages)")
            },
            CacheRequirement(
                "RFC 9111 §4", .must,
                "write unsafe requests through to the origin (CSAPIService's read modes on a POST are an app's explicit opt-out)",
                stubs: [.versions("r/write-through", fresh)]
            ) { lab in
                for method in [HTTPRequest.Method.post, .put, .patch] {
                    try await lab.send(lab.endpoint("r/write-through", method: method))
                    try await lab.send(lab.endpoint("r/write-through", method: method))
                }
                try lab.require(
                    lab.requests("r/write-through").count == 6, "an unsafe request was answered from storage")
            },
            CacheRequirement(
                "RFC 9111 §4", .must, "use the most recent of several suitable stored responses",
                stubs: [.versions("r/recent", fresh.merging(["Vary": "X-Region"]) { $1 })]
            ) { lab in
                let region = HTTPFields.named([("X-Region", "eu")])
                _ = try await lab.get("r/recent", region)
                _ = try await lab.get("r/recent", HTTPFields.named([("X-Region", "us")]))
                var refreshed = region
                refreshed[.cacheControl] = "no-cache"
                _ = try await lab.get("r/recent", refreshed)
                let reply = try await lab.get("r/recent", region)
                try lab.require(reply.stored && reply.body == "v3", "not the most recent: \(reply)")
            },
            CacheRequirement(
                "RFC 9111 §4", .must, "revalidate on every use when the cache has no clock",
                notApplicable: "the cache always has a clock (the system's, or the one it is given)"),
            CacheRequirement(
                "RFC 9111 §4.1", .mustNot, "use a response whose Vary fields the request does not match",
                stubs: [.versions("r/vary", fresh.merging(["Vary": "X-Region"]) { $1 })]
            ) { lab in
                _ = try await lab.get("r/vary", HTTPFields.named([("X-Region", "eu")]))
                let other = try await lab.get("r/vary", HTTPFields.named([("X-Region", "us")]))
                try lab.require(!other.stored, "the eu variant answered us")
                let absent = try await lab.get("r/vary")
                try lab.require(!absent.stored, "a variant answered a request without the field")
                let europe = try await lab.get("r/vary", HTTPFields.named([("X-Region", "eu")]))
                try lab.require(
                    europe.stored && europe.body == "v1", "the eu variant was not kept: \(europe)")
            },
            CacheRequirement(
                "RFC 9111 §4.1", .mustNot, "match Vary: * to any request",
                stubs: [.versions("r/vary-star", fresh.merging(["Vary": "*"]) { $1 })]
            ) { lab in
                _ = try await lab.get("r/vary-star")
                try lab.require(!(try await lab.get("r/vary-star")).stored, "Vary: * was matched")
            },
            CacheRequirement(
                "RFC 9111 §4.2.2", .mustNot,
                "use heuristic freshness when the response has an explicit expiration",
                stubs: [
                    .versions(
                        "r/heuristic",
                        ["Cache-Control": "max-age=0", "Last-Modified": "Sun, 06 Nov 1983 08:49:37 GMT"])
                ]
            ) { lab in
                _ = try await lab.get("r/heuristic")
                lab.advance(1)
                try lab.require(!(try await lab.get("r/heuristic")).stored, "a heuristic overrode max-age=0")
            },
            CacheRequirement(
                "RFC 9111 §4.2.4", .mustNot,
                "serve a stale response that no-cache, must-revalidate or proxy-revalidate (shared) forbids",
                stubs: [
                    .versions(
                        "r/forbid-revalidate",
                        ["Cache-Control": "max-age=60, must-revalidate, stale-while-revalidate=600"]),
                    .versions("r/forbid-no-cache", ["Cache-Control": "max-age=60, no-cache"]),
                ]
            ) { lab in
                for path in ["r/forbid-revalidate", "r/forbid-no-cache"] {
                    _ = try await lab.get(path)
                }
                lab.advance(100)
                for path in ["r/forbid-revalidate", "r/forbid-no-cache"] {
                    let reply = try await lab.get(path, [.cacheControl: "max-stale"])
                    try lab.require(!reply.stored, "\(path) was served stale")
                }
            },
            CacheRequirement(
                "RFC 9111 §4.2.4", .mustNot,
                "serve a stale response unless disconnected or explicitly allowed",
                stubs: [
                    CacheLab.Stub(
                        "r/stale-error", [(200, ["Cache-Control": "max-age=60"], "v1"), (503, [:], "down")])
                ]
            ) { lab in
                _ = try await lab.get("r/stale-error")
                lab.advance(100)
                try await lab.requireFailure("r/stale-error", status: 503, "served stale without permission")
            },
            CacheRequirement(
                "RFC 9111 §4.4", .must, "invalidate the target URI after a 2xx or 3xx to an unsafe method",
                stubs: [
                    CacheLab.Stub("r/target", method: "POST", [(201, [:], "created")]),
                    .versions("r/target", fresh),
                ]
            ) { lab in
                _ = try await lab.get("r/target")
                _ = try await lab.get("r/target", [.accept: "text/plain"])
                try await lab.send(Endpoint<RawResponse>(.post("r/target"), on: lab.node))
                try lab.require(
                    !(try await lab.get("r/target")).stored, "the stored response survived a POST")
                try lab.require(
                    !(try await lab.get("r/target", [.accept: "text/plain"])).stored, "a variant survived")
            },
            CacheRequirement(
                "RFC 9111 §4.4", .mustNot,
                "invalidate, from Location or Content-Location, a URI of another origin",
                stubs: [
                    CacheLab.Stub(
                        "r/moved", method: "PUT",
                        [
                            (
                                204,
                                [
                                    "Location": "/r/near",
                                    "Content-Location": "http://elsewhere.invalid/r/far",
                                ], ""
                            )
                        ]),
                    .versions("r/near", fresh), .versions("r/far", fresh),
                ]
            ) { lab in
                _ = try await lab.get("r/near")
                _ = try await lab.get("r/far")
                try await lab.send(Endpoint<RawResponse>(.put("r/moved"), on: lab.node))
                try lab.require(
                    !(try await lab.get("r/near")).stored, "same-origin Location was kept (MAY, done)")
                try lab.require(try await lab.get("r/far").stored, "another origin's URI was invalidated")
            },
        ]
    }
}
