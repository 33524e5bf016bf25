import NIOConcurrencyHelpers
import NIOCore

/// The document's answers, made once: an answer depends only on the
/// operation, the `Prefer` and `Accept` headers and the seed (fixed for a
/// server), and making one from a schema costs far more than sending it.
final class SpecAnswerCache: Sendable {
    struct Key: Hashable, Sendable {
        var method: String
        var template: String
        var prefer: [String]
        var accept: String?

        init(_ operation: SpecOperation, _ request: RecordedRequest) {
            method = operation.method
            template = operation.template
            prefer = request.headerValues("Prefer")
            accept = request.header("Accept")
        }
    }

    /// An answer and its bytes on a kept-alive connection, head included
    /// (``ResponsePlan/prepared(_:)``), as a stub's are.
    struct Kept: Sendable {
        var response: StubResponse
        var prepared: ByteBuffer?
    }

    private let answers = NIOLockedValueBox([Key: Kept]())

    func answer(for key: Key) -> Kept? { answers.withLockedValue { $0[key] } }

    /// Keeps an answer; past 1,000 (many distinct `Prefer` or `Accept`
    /// values) the kept ones are dropped and made again as asked.
    func keep(_ answer: StubResponse, for key: Key) -> Kept {
        let kept = Kept(response: answer, prepared: ResponsePlan.prepared(answer))
        answers.withLockedValue { answers in
            if answers.count >= 1_000 { answers.removeAll() }
            answers[key] = kept
        }
        return kept
    }
}
