public import CourierCore
import Foundation

/// A ``/CourierCore/ResponseTransformer`` that replaces the body with the envelope's
/// payload: `{"code":0,"data":{…}}` → `{…}`.
///
/// Usually the decoder reads the payload in place and this is not needed; use
/// it when the payload goes to code that expects the bare JSON.
public struct EnvelopeUnwrapper: ResponseTransformer {
    /// The format whose ``/CourierCore/EnvelopeFormat/dataPath`` is unwrapped.
    public let format: EnvelopeFormat

    /// Creates an unwrapper for a format.
    public init(format: EnvelopeFormat = .standard) { self.format = format }

    /// The payload's JSON bytes; `null` when the payload is null or absent.
    /// - Throws: `DecodingError` when the body is not JSON.
    public func transform(_ body: [UInt8]) throws -> [UInt8] {
        let tree = try JSONDecoder().decode(JSONValue.self, from: Data(JSONBytes.withoutBOM(body)))
        let payload = format.dataPath.reduce(Optional(tree)) { value, key in value?[key] }
        return (payload ?? .null).serialized()
    }
}
