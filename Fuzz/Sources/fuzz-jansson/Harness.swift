@_spi(Decoding) import CourierCore
import CourierJansson

// libFuzzer calls this with every input it tries. Any crash, trap or
// sanitizer report is a finding; thrown errors are the expected outcome for
// bad input. Three targets in one: JSONValue parsing (and its serialisation
// round trip), JanssonDecoder into a model that accepts any shape, and the
// envelope peek followed by decoding the payload from the same tree.

/// A typed model, so the keyed paths with real keys run too.
struct Envelope: Decodable {
    let id: Int?
    let name: String?
    let tags: [String?]?
    let nested: [String: Double]?
}

let decoder = JanssonDecoder(keyDecodingStrategy: .convertFromSnakeCase)
let formats = [EnvelopeFormat.standard, EnvelopeFormat(code: "a.b", message: ["m", "x.y"], data: "d.e")]

/// libFuzzer's entry point: one input, every target; returns 0 (keep the input if new).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let value = try? JSONValue(parsing: bytes) {
        // What Courier writes, Courier reads back as the same value.
        guard let again = try? JSONValue(parsing: value.serialized()), again == value else {
            fatalError("serialisation round trip changed \(value)")
        }
        _ = value.serialized(sortedKeys: true)
    }
    _ = try? decoder.decode(JSONValue.self, from: bytes)
    _ = try? decoder.decode(Envelope.self, from: bytes)
    for format in formats {
        if let head = try? decoder.readEnvelope(bytes, format: format) {
            _ = try? decoder.decode(JSONValue.self, from: bytes, at: format.dataPath, envelope: head)
        }
    }
    return 0
}
