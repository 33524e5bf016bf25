import CourierCore

/// What an NDJSON sequence does with a line that does not decode.
public enum NDJSONBadLines: Sendable {
    /// End the sequence with ``NDJSONLineError`` (the default).
    case fail
    /// Pass the line over after handing its error to the closure.
    case skip(@Sendable (NDJSONLineError) -> Void)
}

/// A line of an NDJSON body that did not decode.
public struct NDJSONLineError: Error, Sendable, CustomStringConvertible {
    /// The line's number, from 1 (blank lines counted).
    public var line: Int
    /// The decoder's error.
    public var underlying: any Error
    /// The line's first 200 bytes, as text.
    public var excerpt: String

    /// `line 3: <decoder error> in "{not json"`.
    public var description: String { "line \(line): \(underlying) in \"\(excerpt)\"" }
}

/// Values decoded from an NDJSON body, one per line, lazily.
package struct NDJSONSequence<Base: AsyncSequence & Sendable, Element: Decodable & Sendable>: AsyncSequence,
    Sendable
where Base.Element == [UInt8] {
    let base: Base
    let decoder: any ResponseDecoder
    let badLines: NDJSONBadLines

    /// Decodes lines as they arrive.
    package struct AsyncIterator: AsyncIteratorProtocol {
        var lines: RawLineIterator<Base>
        let decoder: any ResponseDecoder
        let badLines: NDJSONBadLines

        /// The next value, or nil after the last line.
        package mutating func next() async throws -> Element? {
            while let (bytes, number) = try await lines.next() {
                if bytes.allSatisfy({ $0 == 32 || $0 == 9 }) { continue }
                do {
                    return try decoder.decode(Element.self, from: bytes, at: [])
                } catch {
                    let failure = NDJSONLineError(
                        line: number, underlying: error,
                        excerpt: String(decoding: bytes.prefix(200), as: UTF8.self))
                    switch badLines {
                    case .fail: throw failure
                    case .skip(let report): report(failure)
                    }
                }
            }
            return nil
        }
    }

    /// An iterator over the values.
    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lines: RawLineIterator(base.makeAsyncIterator()), decoder: decoder, badLines: badLines)
    }
}
