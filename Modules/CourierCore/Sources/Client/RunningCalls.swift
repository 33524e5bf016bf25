/// The calls a client is running, for ``APIClient/cancelAll()`` and
/// ``APIClient/cancelAll(tagged:)``: a table of slots reused through a free
/// list, so that starting and ending a call costs an array write each — no
/// hashing, no allocation once warm.
/// Not thread-safe by itself: the client keeps it under its lock.
struct RunningCalls {
    private struct Running {
        let call: CallCancellation
        /// The endpoint's tags (``EndpointSpec/tags``).
        let tags: Set<String>
    }

    private var slots: [Running?] = []
    private var free: [Int] = []

    /// How many calls are running.
    private(set) var count = 0

    /// Records a call and its endpoint's tags; returns its slot, for ``remove(_:)``.
    mutating func insert(_ call: CallCancellation, tags: Set<String> = []) -> Int {
        count += 1
        let running = Running(call: call, tags: tags)
        if let slot = free.popLast() {
            slots[slot] = running
            return slot
        }
        slots.append(running)
        return slots.count - 1
    }

    /// Forgets the call in `slot`.
    mutating func remove(_ slot: Int) {
        slots[slot] = nil
        free.append(slot)
        count -= 1
    }

    /// Every running call.
    var all: [CallCancellation] { slots.compactMap { $0?.call } }

    /// The running calls whose endpoint carries `tag`.
    func tagged(_ tag: String) -> [CallCancellation] {
        slots.compactMap { $0.flatMap { $0.tags.contains(tag) ? $0.call : nil } }
    }
}
