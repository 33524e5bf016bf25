// Decoding benchmark: JSONDecoder, JanssonDecoder, jansson with a
// hand-written fill (the ceiling), JSONSerialization, and the envelope peek
// on a business error against a full decode. Rounds interleaved; medians of
// MB/s and ratios to JSONDecoder, per round then the median.
//
// Usage: courier-json-bench [rounds=7]

import BenchSupport
import CBenchJansson
import CourierCodable
@_spi(Decoding) import CourierCore
import CourierJansson
import Foundation

struct Record: Decodable, Equatable {
    let id: Int
    let name: String
    let email: String
    let active: Bool
    let score: Double
    let tags: [String]
}

struct User: Decodable, Equatable {
    let id: Int
    let name: String
    let email: String
    let plan: String
    let verified: Bool
    let balance: Double
    let roles: [String]
    let address: Address

    struct Address: Decodable, Equatable {
        let street: String
        let city: String
        let zip: String
        let country: String
    }
}

struct Envelope<T: Decodable>: Decodable {
    let code: Int
    let msg: String
    let data: T?
}

/// `count` records as JSON, deterministic.
func records(_ count: Int) -> [UInt8] {
    let items = (0..<count).map { index in
        #"{"id":\#(index),"name":"Customer \#(index) Lovelace","email":"customer\#(index)@example.com","active":\#(index % 3 != 0),"score":\#(Double(index) * 1.25 + 0.5),"tags":["retail","tier-\#(index % 5)","eu"]}"#
    }
    return Array(("[" + items.joined(separator: ",") + "]").utf8)
}

/// The ~750-byte envelope the typed-call benchmark serves, and the same
/// body as a business error.
let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Fixtures/user.json").standardizedFileURL
let envelope = Array(try Data(contentsOf: fixture))
let businessError = Array(
    String(decoding: envelope, as: UTF8.self).replacingOccurrences(of: #""code":0"#, with: #""code":4003"#)
        .utf8)

/// Fills `[Record]` by hand from jansson's tree: the fastest a decoder over
/// jansson could be.
func handFill(_ bytes: [UInt8]) -> [Record] {
    var error = json_error_t()
    let root = bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { json_loadb($0.baseAddress, $0.count, 0, &error) }
    }
    guard let root else { fatalError("hand fill: \(error.line)") }
    defer { json_decref(root) }
    func string(_ node: UnsafeMutablePointer<json_t>?, _ key: String) -> String {
        guard let value = json_object_get(node, key), let text = json_string_value(value) else { return "" }
        return String(
            decoding: UnsafeRawBufferPointer(start: text, count: json_string_length(value)), as: UTF8.self)
    }
    var result: [Record] = []
    result.reserveCapacity(json_array_size(root))
    for index in 0..<json_array_size(root) {
        let item = json_array_get(root, index)
        let tagsNode = json_object_get(item, "tags")
        var tags: [String] = []
        for tag in 0..<json_array_size(tagsNode) {
            if let node = json_array_get(tagsNode, tag), let text = json_string_value(node) {
                tags.append(
                    String(
                        decoding: UnsafeRawBufferPointer(start: text, count: json_string_length(node)),
                        as: UTF8.self))
            }
        }
        result.append(
            Record(
                id: Int(json_integer_value(json_object_get(item, "id"))), name: string(item, "name"),
                email: string(item, "email"),
                active: bench_json_typeof(json_object_get(item, "active")) == JSON_TRUE,
                score: json_number_value(json_object_get(item, "score")), tags: tags))
    }
    return result
}

enum Contender: String, CaseIterable {
    case jsonDecoder = "JSONDecoder"
    case jansson = "JanssonDecoder"
    case handFill = "jansson + hand-written fill"
    case serialization = "JSONSerialization"
}

let rounds = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 7 : 7
let payloads: [(String, [UInt8])] = [("1 KB", records(6)), ("100 KB", records(600)), ("1 MB", records(6000))]
let foundation = JSONDecoder()
let jansson = JanssonDecoder()

/// Runs `body` enough times for about 0.2 s and returns seconds per run.
func measure(_ body: () throws -> Void) rethrows -> Double {
    var iterations = 1
    while true {
        let start = ContinuousClock.now
        for _ in 0..<iterations { try body() }
        let elapsed = seconds(ContinuousClock.now - start)
        if elapsed > 0.2 { return elapsed / Double(iterations) }
        iterations *= elapsed < 0.02 ? 10 : 2
    }
}

// Every contender must produce the same records before anything is timed.
for (name, bytes) in payloads {
    let expected = try foundation.decode([Record].self, from: Data(bytes))
    guard try jansson.decode([Record].self, from: bytes) == expected, handFill(bytes) == expected else {
        fatalError("decoders disagree on \(name)")
    }
}

var samples: [String: [String: [Double]]] = [:]
for round in 1...rounds {
    for (name, bytes) in payloads {
        let data = Data(bytes)
        for contender in Contender.allCases {
            let seconds = try measure {
                switch contender {
                case .jsonDecoder: _ = try foundation.decode([Record].self, from: data)
                case .jansson: _ = try jansson.decode([Record].self, from: bytes)
                case .handFill: _ = handFill(bytes)
                case .serialization: _ = try JSONSerialization.jsonObject(with: data)
                }
            }
            samples[name, default: [:]][contender.rawValue, default: []].append(
                Double(bytes.count) / seconds / 1e6)
        }
    }
    // The small envelope: a full decode of the model, and a business error.
    let envelopeData = Data(envelope)
    let small: [(String, () throws -> Void)] = [
        ("JSONDecoder", { _ = try foundation.decode(Envelope<User>.self, from: envelopeData) }),
        (
            "JanssonDecoder",
            {
                let head = try jansson.readEnvelope(envelope, format: .standard)
                _ = try jansson.decode(User.self, from: envelope, at: ["data"], envelope: head)
            }
        ),
        (
            "business error: JSONDecoder full decode",
            { _ = try foundation.decode(Envelope<User>.self, from: Data(businessError)) }
        ),
        (
            "business error: jansson envelope peek",
            { _ = try jansson.readEnvelope(businessError, format: .standard) }
        ),
        ("JSONValue(parsing:)", { _ = try JSONValue(parsing: businessError) }),
        (
            "jansson parse alone (json_loadb, then freed)",
            {
                var error = json_error_t()
                let root = envelope.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) {
                        json_loadb($0.baseAddress, $0.count, 0, &error)
                    }
                }
                json_decref(root)
            }
        ),
    ]
    for (name, body) in small {
        samples["envelope", default: [:]][name, default: []].append(try measure(body) * 1e6)
    }
    FileHandle.standardError.write(Data("round \(round) of \(rounds) done\n".utf8))
}

print(
    "Medians of \(rounds) interleaved rounds; ratios are per-round speed ratios to JSONDecoder, then the median."
)
for (name, bytes) in payloads {
    print("\n[Record], \(name) (\(bytes.count) bytes)")
    print("| decoder | MB/s | × JSONDecoder |")
    print("|---|---|---|")
    let base = samples[name]?[Contender.jsonDecoder.rawValue] ?? []
    for contender in Contender.allCases {
        let mine = samples[name]?[contender.rawValue] ?? []
        print(
            "| \(contender.rawValue) | \(String(format: "%.1f", median(mine))) | "
                + "\(String(format: "%.2f", median(zip(mine, base).map { $0 / $1 }))) |")
    }
}
print("\n\(envelope.count)-byte envelope {code, msg, data: user}")
print("| what | µs per body | × JSONDecoder full decode |")
print("|---|---|---|")
let full = samples["envelope"]?["JSONDecoder"] ?? []
for name in [
    "JSONDecoder", "JanssonDecoder", "business error: JSONDecoder full decode",
    "business error: jansson envelope peek",
    "JSONValue(parsing:)", "jansson parse alone (json_loadb, then freed)",
] {
    let mine = samples["envelope"]?[name] ?? []
    print(
        "| \(name) | \(String(format: "%.2f", median(mine))) | "
            + "\(String(format: "%.2f", median(zip(full, mine).map { $0 / $1 })))× faster |")
}
