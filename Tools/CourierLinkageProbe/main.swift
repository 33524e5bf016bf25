import CourierCore

// Exercises CourierCore so the linker keeps it; scripts/check-linkage inspects
// this executable's dynamic dependencies.
let node = Node("probe", baseURL: "https://example.invalid")
let endpoint = Endpoint<RawResponse>(.get("status/\(200)"), on: node, query: ["probe": true])
print(endpoint.spec.route, (try? ParameterEncoding.default.encode(endpoint.spec.query)) ?? "")
