import CourierCodable
@_spi(Locking) import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging

@testable import CourierPlugins

struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

extension Node {
    static let api = Node("api", baseURL: "https://api.example.com/v1")
}

/// A server double: answers with `answer` and remembers every request
/// (head and body) as the transport received it.
final class Origin: Sendable {
    struct Seen: Sendable {
        let head: HTTPRequest
        let body: [UInt8]?
    }

    private let seen = Locked<[Seen]>([])
    private let answer: @Sendable (HTTPRequest, Int) -> StubOutcome

    init(
        _ answer: @escaping @Sendable (HTTPRequest, Int) -> StubOutcome = { _, _ in
            .json(#"{"id": 7, "name": "Ada"}"#)
        }
    ) {
        self.answer = answer
    }

    var transport: StubTransport {
        StubTransport { [self] request in
            let number = seen.withLock { seen in
                seen.append(Seen(head: request.head, body: request.body))
                return seen.count
            }
            return answer(request.head, number)
        }
    }

    var requests: [Seen] { seen.withLock { $0 } }
}

/// A logger that keeps every entry, at every level.
func capturingLogger() -> (Logger, InMemoryLogHandler) {
    let handler = InMemoryLogHandler()
    var logger = Logger(label: "courier.tests", factory: { _ in handler })
    logger.logLevel = .trace
    return (logger, handler)
}

extension InMemoryLogHandler {
    /// Every message and metadata value, as one text.
    var everything: String {
        entries.map { entry in
            "\(entry.level) \(entry.message) "
                + entry.metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }.joined(separator: "\n")
    }
}
