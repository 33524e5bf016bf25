import Courier
import Foundation

/// One kind of call the soak mixes in, with the outcome it must have.
///
/// Out of every 100 calls: one is answered with a TCP reset, one never
/// answered (the server stalls until the call's timeout), one is a gzip bomb
/// the client must stop at its body limit, and the rest succeed.
enum SoakCall: String, CaseIterable, Sendable {
    case ok, reset, stall, bomb

    /// The kind of the call with this index.
    static func kind(of index: Int) -> SoakCall {
        switch index % 100 {
        case 17: .reset
        case 42: .stall
        case 73: .bomb
        default: .ok
        }
    }

    /// The outcome label a correct client reports for this kind.
    var expectedOutcome: String {
        switch self {
        case .ok: "ok"
        case .reset: "transport/connectionReset"
        case .stall: "timedOut/timedOut"
        case .bomb: "transport/bodyTooLarge"
        }
    }

    /// The server path answering this kind (stubs in the soak's contract file).
    var path: RoutePath {
        switch self {
        case .ok: "soak/ok"
        case .reset: "soak/reset"
        case .stall: "soak/stall"
        case .bomb: "soak/bomb"
        }
    }

    /// A label for how a call ended: "ok", or the error's code (with the
    /// transport's code when the transport failed).
    static func outcome(of result: Result<SoakItem, any Error>) -> String {
        switch result {
        case .success: return "ok"
        case .failure(let error as CourierError):
            if let transport = error.underlying as? TransportError {
                return "\(error.code)/\(transport.code)"
            }
            return "\(error.code)"
        case .failure(let error): return "untyped \(type(of: error))"
        }
    }
}

/// What `/soak/ok` returns inside its envelope.
struct SoakItem: Decodable, Sendable {
    let id: Int
    let name: String
    let tags: [String]
}
