import CourierJansson
import Foundation
import Testing

/// What a decoder made of a fixture: a value, or the kind of error.
enum Outcome<T: Equatable>: Equatable, CustomStringConvertible {
    case value(T)
    case failure(String)

    var description: String {
        switch self {
        case .value(let value): "value \(value)"
        case .failure(let kind): "failure \(kind)"
        }
    }
}

/// The kind of a decoding error, as both decoders report it.
func kind(of error: any Error) -> String {
    switch error {
    case DecodingError.typeMismatch: "typeMismatch"
    case DecodingError.valueNotFound: "valueNotFound"
    case DecodingError.keyNotFound: "keyNotFound"
    case DecodingError.dataCorrupted: "dataCorrupted"
    default: "\(type(of: error))"
    }
}

/// Decodes `json` with both decoders, configured alike.
func outcomes<T: Decodable & Equatable>(
    _ type: T.Type, _ json: [UInt8], jansson: JanssonDecoder = JanssonDecoder(),
    foundation: JSONDecoder = JSONDecoder()
) -> (foundation: Outcome<T>, jansson: Outcome<T>) {
    let expected: Outcome<T>
    do {
        expected = .value(try foundation.decode(T.self, from: Data(json)))
    } catch {
        expected = .failure(kind(of: error))
    }
    let actual: Outcome<T>
    do {
        actual = .value(try jansson.decode(T.self, from: json))
    } catch {
        actual = .failure(kind(of: error))
    }
    return (expected, actual)
}

/// Expects both decoders to agree on `json`: the same value, or the same kind of failure.
func expectSame<T: Decodable & Equatable>(
    _ type: T.Type, _ json: String, jansson: JanssonDecoder = JanssonDecoder(),
    foundation: JSONDecoder = JSONDecoder(), sourceLocation: SourceLocation = #_sourceLocation
) {
    expectSame(
        type, Array(json.utf8), jansson: jansson, foundation: foundation, sourceLocation: sourceLocation)
}

/// Expects both decoders to agree on `bytes`.
func expectSame<T: Decodable & Equatable>(
    _ type: T.Type, _ bytes: [UInt8], jansson: JanssonDecoder = JanssonDecoder(),
    foundation: JSONDecoder = JSONDecoder(), sourceLocation: SourceLocation = #_sourceLocation
) {
    let (expected, actual) = outcomes(type, bytes, jansson: jansson, foundation: foundation)
    #expect(
        actual == expected,
        "\(String(decoding: bytes.prefix(120), as: UTF8.self)) as \(T.self): JSONDecoder gave \(expected), JanssonDecoder \(actual)",
        sourceLocation: sourceLocation)
}
