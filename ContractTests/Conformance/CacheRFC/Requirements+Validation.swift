import CourierCache
import CourierCore
import CourierMockServer
import HTTPTypes

/// RFC 9111 §3.2 and §4.3: asking the origin whether a stored response is
/// still good, and what its answer changes.
extension CacheRequirement {
    /// `v1` with `ETag: "v1"`, a 304 for `If-None-Match: "v1"` carrying `notModified`.
    static func validating(
        _ path: String, _ stored: [String: String], notModified: [String: String],
        match: [String: String] = ["If-None-Match": "\"v1\""]
    ) -> [CacheLab.Stub] {
        [
            CacheLab.Stub(path, when: match, priority: 1, [(304, notModified, "")]),
            .versions(path, stored),
        ]
    }

    static var validation: [CacheRequirement] {
        [
            CacheRequirement(
                "RFC 9111 §4.3.1", .must, "send the stored entity tag when validating",
                stubs: validating(
                    "v/etag", ["Cache-Control": "max-age=0", "ETag": "\"v1\""],
                    notModified: ["ETag": "\"v1\"", "Cache-Control": "max-age=0"])
            ) { lab in
                _ = try await lab.get("v/etag")
                let again = try await lab.send(lab.endpoint("v/etag"))
                let sent = lab.requests("v/etag").last?.header("If-None-Match")
                try lab.require(sent == "\"v1\"", "If-None-Match: \(sent ?? "none")")
                try lab.require(again.model.cacheSource == .revalidated, "not revalidated")
            },
            CacheRequirement(
                "RFC 9111 §4.3.1", .should,
                "send Last-Modified as If-Modified-Since when validating one whole response",
                stubs: validating(
                    "v/date",
                    ["Cache-Control": "max-age=0", "Last-Modified": "Sat, 05 Nov 1994 08:49:37 GMT"],
                    notModified: ["Last-Modified": "Sat, 05 Nov 1994 08:49:37 GMT"],
                    match: ["If-Modified-Since": "Sat, 05 Nov 1994 08:49:37 GMT"])
            ) { lab in
                _ = try await lab.get("v/date")
                let again = try await lab.send(lab.endpoint("v/date"))
                try lab.require(
                    again.model.cacheSource == .revalidated, "not revalidated with If-Modified-Since")
            },
            CacheRequirement(
                "RFC 9111 §4.3.2", .mustNot,
                "evaluate the caller's own conditions for a resource it has not stored",
                stubs: [
                    CacheLab.Stub(
                        "v/own", when: ["If-None-Match": "\"mine\""], priority: 1,
                        [(304, ["ETag": "\"mine\""], "")]),
                    .versions("v/own", fresh),
                ]
            ) { lab in
                let conditional = lab.endpoint("v/own", [.ifNoneMatch: "\"mine\""], validation: .anyStatus)
                let reply = try await lab.send(conditional)
                try lab.require(
                    reply.attempts == 1 && reply.model.statusCode == 304, "status \(reply.model.statusCode)")
                try lab.require(
                    lab.requests("v/own").first?.header("If-None-Match") == "\"mine\"",
                    "the condition was not sent")
            },
            CacheRequirement(
                "RFC 9111 §4.3.3", .must, "use a full response to a validation request as the answer",
                stubs: [.versions("v/full", ["Cache-Control": "max-age=0", "ETag": "\"always-new\""])]
            ) { lab in
                _ = try await lab.get("v/full")
                let again = try await lab.get("v/full")
                try lab.require(again.body == "v2", "answered \(again.body)")
            },
            CacheRequirement(
                "RFC 9111 §4.3.4", .mustNot,
                "update a stored response from a 304 whose strong validator it does not have",
                stubs: validating(
                    "v/other", ["Cache-Control": "max-age=0", "ETag": "\"v1\""],
                    notModified: ["ETag": "\"v9\"", "X-Changed": "yes"])
            ) { lab in
                _ = try await lab.get("v/other")
                let again = try await lab.send(lab.endpoint("v/other"))
                let body = String(decoding: again.model.body.bytes ?? [], as: UTF8.self)
                try lab.require(body == "v2", "answered \(body) after a 304 for another representation")
                try lab.require(
                    again.model.headerFields[HTTPField.Name("X-Changed") ?? .accept] == nil,
                    "the 304 updated the entry")
                try lab.require(
                    lab.requests("v/other").last?.header("If-None-Match") == nil, "not sent unconditionally")
            },
            CacheRequirement(
                "RFC 9111 §3.2, §4.3.4", .must,
                "update the stored header fields with the 304's (but Content-Length and those left out of storage)",
                stubs: validating(
                    "v/update", ["Cache-Control": "max-age=0", "ETag": "\"v1\"", "X-Version": "1"],
                    notModified: [
                        "ETag": "\"v1\"", "X-Version": "2", "Cache-Control": "max-age=600",
                        "Proxy-Authentication-Info": "hop",
                    ])
            ) { lab in
                _ = try await lab.get("v/update")
                _ = try await lab.get("v/update")
                let reply = try await lab.send(lab.endpoint("v/update"))
                let fields = reply.model.headerFields
                try lab.require(reply.attempts == 0, "the 304's max-age=600 was not taken")
                try lab.require(fields[HTTPField.Name("X-Version") ?? .accept] == "2", "X-Version: \(fields)")
                try lab.require(
                    fields[HTTPField.Name("Proxy-Authentication-Info") ?? .accept] == nil,
                    "a field left out of storage was added")
            },
            CacheRequirement(
                "RFC 9111 §3.2", .should,
                "leave out of the update only what the stored response's integrity needs (Content-Encoding: the body is stored decoded)",
                stubs: validating(
                    "v/coding", ["Cache-Control": "max-age=0", "ETag": "\"v1\"", "Content-Language": "en"],
                    notModified: ["ETag": "\"v1\"", "Content-Language": "fr", "Content-Encoding": "br"])
            ) { lab in
                _ = try await lab.get("v/coding")
                let reply = try await lab.send(lab.endpoint("v/coding"))
                let fields = reply.model.headerFields
                try lab.require(fields[.contentLanguage] == "fr", "Content-Language not updated")
                try lab.require(
                    fields[.contentEncoding] == nil, "Content-Encoding updated: the body would be misread")
            },
        ]
    }
}
