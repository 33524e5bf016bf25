/// Transfers waiting for a place in the multi handle, first come first served.
struct WaitingTransfers {
    private var items: [CurlTransfer?] = []
    private var head = 0

    private(set) var count = 0

    mutating func append(_ transfer: CurlTransfer) {
        items.append(transfer)
        count += 1
    }

    mutating func popFirst() -> CurlTransfer? {
        while head < items.count {
            let item = items[head]
            items[head] = nil
            head += 1
            if let item {
                count -= 1
                compact()
                return item
            }
        }
        return nil
    }

    /// Takes out a cancelled transfer.
    mutating func remove(id: UInt64) -> CurlTransfer? {
        guard let index = items[head...].firstIndex(where: { $0?.id == id }) else { return nil }
        count -= 1
        defer { items[index] = nil }
        return items[index]
    }

    /// Everything still waiting, emptying the queue.
    mutating func drain() -> [CurlTransfer] {
        defer {
            items = []
            head = 0
            count = 0
        }
        return items[head...].compactMap { $0 }
    }

    private mutating func compact() {
        if head > 1024, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
    }
}
