/// The calls a client is running, for ``APIClient/cancelAll()``: a table of
/// slots reused through a free list, so that starting and ending a call
/// costs an array write each — no hashing, no allocation once warm.
/// Not thread-safe by itself: the client keeps it under its lock.
struct RunningCalls {
    private var slots: [CallCancellation?] = []
    private var free: [Int] = []

    /// How many calls are running.
    private(set) var count = 0

    /// Records a call; returns its slot, for ``remove(_:)``.
    mutating func insert(_ call: CallCancellation) -> Int {
        count += 1
        if let slot = free.popLast() {
            slots[slot] = call
            return slot
        }
        slots.append(call)
        return slots.count - 1
    }

    /// Forgets the call in `slot`.
    mutating func remove(_ slot: Int) {
        slots[slot] = nil
        free.append(slot)
        count -= 1
    }

    /// Every running call.
    var all: [CallCancellation] { slots.compactMap { $0 } }
}
