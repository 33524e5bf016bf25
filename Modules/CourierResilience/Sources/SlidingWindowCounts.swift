import CourierCore

/// Two counts of events over the last `length` of a clock's time — calls
/// and retries for ``RetryBudget``, successes and failures for a circuit —
/// kept in ten slices of the window, so that old events age out slice by
/// slice and no event is remembered on its own: counting costs two
/// additions, and memory stays ten slices however many events there are.
/// A plain value; its owner keeps it behind a lock.
struct SlidingWindowCounts: Sendable, Equatable {
    private struct Slice: Sendable, Equatable {
        var index: Int64
        var first = 0
        var second = 0
    }

    private static let sliceCount = 10
    /// The width of one slice, in nanoseconds.
    private let sliceWidth: Int64
    private var slices = Array(repeating: Slice(index: Int64.min), count: Self.sliceCount)

    /// An empty window `length` long.
    package init(length: Duration) {
        sliceWidth = max(1, length.nanoseconds / Int64(Self.sliceCount))
    }

    /// Adds to the counts at `now`.
    package mutating func add(first: Int = 0, second: Int = 0, at now: Duration) {
        let current = now.nanoseconds / sliceWidth
        let count = Int64(Self.sliceCount)
        let position = Int(((current % count) + count) % count)
        if slices[position].index != current { slices[position] = Slice(index: current) }
        slices[position].first += first
        slices[position].second += second
    }

    /// The counts of the events within the window at `now`.
    package func totals(at now: Duration) -> (first: Int, second: Int) {
        let current = now.nanoseconds / sliceWidth
        var totals = (first: 0, second: 0)
        for slice in slices where slice.index > current - Int64(Self.sliceCount) && slice.index <= current {
            totals.first += slice.first
            totals.second += slice.second
        }
        return totals
    }
}
