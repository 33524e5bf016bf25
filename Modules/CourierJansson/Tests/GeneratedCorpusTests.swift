import CourierJansson
import Foundation
import Testing

/// Documents made by a seeded generator, valid and then broken, through both
/// decoders.
struct GeneratedCorpusTests {
    /// A small, repeatable generator (SplitMix64).
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    static func value(_ random: inout Generator, depth: Int) -> JSONValue {
        switch random.below(depth > 3 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(random.below(2) == 0)
        case 2: return .int(Int64(bitPattern: random.next()) >> Int64(random.below(63)))
        case 3:
            // Integral reals beyond 2^53 are left out: JSONDecoder reads the
            // text "8.98e18" as an exact integer, jansson as the nearest
            // Double (a documented difference, tested on its own).
            let value = Double(bitPattern: random.next())
            let usable = value.isFinite && (value.rounded() != value || abs(value) < 9.007_199_254_740_992e15)
            return .double(usable ? value : Double(random.below(1000)) / 7)
        case 4:
            let scalars = (0..<random.below(12)).compactMap { _ -> Unicode.Scalar? in
                let pick = random.below(4)
                let code =
                    pick == 0 ? random.below(0x20) : pick == 1 ? random.below(0x80) : random.below(0x2FFFF)
                return Unicode.Scalar(UInt32(code))
            }
            return .string(String(String.UnicodeScalarView(scalars)))
        case 5:
            return .array((0..<random.below(5)).map { _ in value(&random, depth: depth + 1) })
        default:
            var object = JSONObject()
            for index in 0..<random.below(5) {
                object["k\(index)_\(random.below(100))"] = value(&random, depth: depth + 1)
            }
            return .object(object)
        }
    }

    @Test(arguments: 0..<8)
    func validDocumentsDecodeAlike(batch: Int) {
        var random = Generator(state: UInt64(batch) &* 7919)
        for _ in 0..<250 {
            let document = Self.value(&random, depth: 0).serialized()
            expectSame(JSONValue.self, document)
        }
    }

    /// Broken documents: jansson never accepts what JSONDecoder refuses, and
    /// when both accept they agree.
    @Test(arguments: 0..<8)
    func brokenDocumentsAreNeverAcceptedByJanssonAlone(batch: Int) {
        var random = Generator(state: UInt64(batch) &* 104_729 &+ 1)
        let breakers = Array("{}[],:\"\\ 0-.eE\u{0}x".utf8)
        for _ in 0..<250 {
            var document = Self.value(&random, depth: 0).serialized()
            switch random.below(3) {
            case 0: document = Array(document.prefix(random.below(max(1, document.count))))
            case 1 where !document.isEmpty:
                document[random.below(document.count)] = breakers[random.below(breakers.count)]
            default:
                document.insert(breakers[random.below(breakers.count)], at: random.below(document.count + 1))
            }
            let (foundation, jansson) = outcomes(JSONValue.self, document)
            if case .value = jansson {
                #expect(
                    jansson == foundation,
                    "\(String(decoding: document, as: UTF8.self)): \(foundation) / \(jansson)")
            }
        }
    }
}
