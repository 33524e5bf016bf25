@_spi(Decoding) public import CourierCore
public import Foundation

/// A ``/CourierCore/ResponseDecoder`` over Foundation's `JSONDecoder`.
///
/// Configure the decoder's strategies once; every decode uses them:
///
/// ```swift
/// let decoder = CodableDecoder { json in
///     json.keyDecodingStrategy = .convertFromSnakeCase
///     json.dateDecodingStrategy = .iso8601
/// }
/// let client = APIClient(transport: transport, decoder: decoder)
/// ```
///
/// A UTF-8 byte order mark before the JSON is ignored. Decoding errors name
/// the coding path (`data.items[2].id`).
public struct CodableDecoder: ResponseDecoder {
    private let makeDecoder: @Sendable () -> JSONDecoder
    private let rootDecoder: JSONDecoder

    /// Creates a decoder; `configure` sets strategies on each `JSONDecoder` it uses.
    public init(configure: @escaping @Sendable (JSONDecoder) -> Void = { _ in }) {
        let make: @Sendable () -> JSONDecoder = {
            let decoder = JSONDecoder()
            configure(decoder)
            return decoder
        }
        self.makeDecoder = make
        self.rootDecoder = make()
    }

    /// Decodes the value at `path`; `DecodingError`s name the full coding path.
    public func decode<T: Decodable>(_ type: T.Type, from body: [UInt8], at path: [String]) throws -> T {
        let data = Data(JSONBytes.withoutBOM(body))
        if path.isEmpty { return try rootDecoder.decode(T.self, from: data) }
        let decoder = makeDecoder()
        decoder.userInfo[.courierKeyPath] = path
        return try decoder.decode(ValueAtPath<T>.self, from: data).value
    }

    /// Reads code, message and data presence without decoding the payload.
    @_spi(Decoding) public func readEnvelope(_ body: [UInt8], format: EnvelopeFormat) throws -> EnvelopeHead {
        let decoder = makeDecoder()
        decoder.userInfo[.courierEnvelopeFormat] = format
        do {
            return try decoder.decode(EnvelopeProbe.self, from: Data(JSONBytes.withoutBOM(body))).head
        } catch let error as EnvelopeReadError {
            throw error
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw EnvelopeReadError(.notJSON, Self.preview(body, reason: context.debugDescription))
        } catch let DecodingError.typeMismatch(_, context) where context.codingPath.isEmpty {
            throw EnvelopeReadError(.notObject, "the body is JSON but not an object")
        } catch {
            throw EnvelopeReadError(.notJSON, Self.preview(body, reason: "\(error)"))
        }
    }

    private static func preview(_ body: [UInt8], reason: String) -> String {
        if body.isEmpty { return "the body is empty" }
        let start = String(decoding: body.prefix(40), as: UTF8.self)
            .map { character -> Character in
                guard let ascii = character.asciiValue, (0x20...0x7E).contains(ascii) else { return "·" }
                return character
            }
        return "the body is not JSON (\(body.count) bytes, starting \"\(String(start))\"): \(reason)"
    }
}

extension ResponseDecoder where Self == CodableDecoder {
    /// `JSONDecoder` with default strategies.
    public static var codable: CodableDecoder { CodableDecoder() }

    /// `JSONDecoder` with strategies set by `configure`.
    public static func codable(configure: @escaping @Sendable (JSONDecoder) -> Void) -> CodableDecoder {
        CodableDecoder(configure: configure)
    }
}

enum JSONBytes {
    /// The bytes without a leading UTF-8 byte order mark.
    static func withoutBOM(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
    }
}

extension CodingUserInfoKey {
    static let courierKeyPath = key("courier.keyPath")
    static let courierEnvelopeFormat = key("courier.envelopeFormat")

    /// `CodingUserInfoKey.init?(rawValue:)` is failable by signature only: the
    /// standard library accepts every string, so the fallback never runs.
    private static func key(_ name: String) -> CodingUserInfoKey {
        guard let key = CodingUserInfoKey(rawValue: name) else {
            preconditionFailure("CodingUserInfoKey rejected \(name)")
        }
        return key
    }
}
