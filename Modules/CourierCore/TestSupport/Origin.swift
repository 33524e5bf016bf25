@_spi(Locking) import CourierCore
package import CourierTesting
package import HTTPTypes

/// A server double: answers with `answer` and remembers every request
/// (head and body) as the transport received it.
package final class Origin: Sendable {
    package struct Seen: Sendable {
        package let head: HTTPRequest
        package let body: [UInt8]?
    }

    private let seen = Locked<[Seen]>([])
    private let answer: @Sendable (HTTPRequest, Int) -> StubOutcome

    package init(
        _ answer: @escaping @Sendable (HTTPRequest, Int) -> StubOutcome = { _, _ in
            .json(#"{"id": 7, "name": "Ada"}"#)
        }
    ) {
        self.answer = answer
    }

    package var transport: StubTransport {
        StubTransport { [self] request in
            let number = seen.withLock { seen in
                seen.append(Seen(head: request.head, body: request.body))
                return seen.count
            }
            return answer(request.head, number)
        }
    }

    package var requests: [Seen] { seen.withLock { $0 } }
}
