/// A streamed NDJSON body (`application/x-ndjson`): one JSON text per line,
/// written as chunks of a chunked body, a few lines at a time, with a pause
/// between chunks.
///
/// In contract files, a response's `ndjson` (instead of a body):
/// ```json
/// "ndjson": {
///   "lines": [{"id": 1}, {"id": 2}],
///   "generate": {"count": 100000, "template": {"id": "{n}", "name": "row {n}"}},
///   "malformedLines": {"3": "{not json"},
///   "linesPerChunk": 10, "delayMs": 5, "dropAfterLines": 500
/// }
/// ```
/// `generate` appends numbered lines from `template`: a string that is
/// exactly `{n}` becomes the number, `{n}` inside a string its digits.
/// `malformedLines` replaces lines (numbered from 1) with raw text, for
/// decoders' error paths. `dropAfterLines` closes the connection mid-body.
public struct NDJSONStream: Sendable, Hashable {
    /// The lines, without their line breaks.
    public var lines: [String]
    /// Lines per chunk (at least 1).
    public var linesPerChunk: Int
    /// Milliseconds between chunks.
    public var delayMs: Int
    /// Close the connection after this many lines instead of ending the body.
    public var dropAfterLines: Int?

    /// A stream of `lines`.
    public init(lines: [String], linesPerChunk: Int = 1, delayMs: Int = 0, dropAfterLines: Int? = nil) {
        self.lines = lines
        self.linesPerChunk = max(1, linesPerChunk)
        self.delayMs = delayMs
        self.dropAfterLines = dropAfterLines
    }
}
