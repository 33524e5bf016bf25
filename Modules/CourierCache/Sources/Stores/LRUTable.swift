/// A table that forgets its least recently used entries first, within a
/// cost limit and a count limit: O(1) lookup, insertion, promotion and
/// eviction (a dictionary into a doubly linked list kept in an array, with a
/// free list, so a warm table allocates nothing). A value type with no lock:
/// ``MemoryStore`` keeps it under one.
struct LRUTable<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value?
        var cost: Int
        /// Towards the most recently used end.
        var newer: Int
        /// Towards the least recently used end.
        var older: Int
    }

    private var index: [Key: Int] = [:]
    private var nodes: [Node] = []
    private var free: [Int] = []
    /// The most recently used node, or -1.
    private var newest = -1
    /// The least recently used node, or -1.
    private var oldest = -1

    /// The most the costs of all entries may add up to.
    let costLimit: Int
    /// The most entries kept.
    let countLimit: Int
    /// The costs of all entries, added up.
    private(set) var totalCost = 0
    /// How many entries there are.
    var count: Int { index.count }

    init(costLimit: Int, countLimit: Int) {
        self.costLimit = costLimit
        self.countLimit = countLimit
    }

    /// The value under `key`, now the most recently used.
    mutating func value(for key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        promote(slot)
        return nodes[slot].value
    }

    /// The value under `key`, leaving the order alone.
    func peek(_ key: Key) -> Value? {
        index[key].flatMap { nodes[$0].value }
    }

    /// Keeps `value` under `key` as the most recently used, then evicts the
    /// least recently used entries until both limits hold. A value that
    /// alone costs more than the limit is not kept (and replaces nothing).
    /// - Returns: The keys evicted to make room.
    @discardableResult
    mutating func insert(_ value: Value, for key: Key, cost: Int) -> [Key] {
        guard cost <= costLimit, countLimit > 0 else { return [] }
        if let slot = index[key] {
            totalCost += cost - nodes[slot].cost
            nodes[slot].value = value
            nodes[slot].cost = cost
            promote(slot)
        } else {
            let node = Node(key: key, value: value, cost: cost, newer: -1, older: -1)
            let slot: Int
            if let reused = free.popLast() {
                nodes[reused] = node
                slot = reused
            } else {
                nodes.append(node)
                slot = nodes.count - 1
            }
            index[key] = slot
            totalCost += cost
            link(slot)
        }
        var evicted: [Key] = []
        while totalCost > costLimit || index.count > countLimit, oldest != -1 {
            let victim = nodes[oldest].key
            removeValue(for: victim)
            evicted.append(victim)
        }
        return evicted
    }

    /// Removes the entry under `key`. - Returns: Its value, if there was one.
    @discardableResult
    mutating func removeValue(for key: Key) -> Value? {
        guard let slot = index.removeValue(forKey: key) else { return nil }
        unlink(slot)
        let value = nodes[slot].value
        totalCost -= nodes[slot].cost
        nodes[slot].value = nil
        nodes[slot].cost = 0
        free.append(slot)
        return value
    }

    /// Removes every entry `shouldRemove` picks. - Returns: How many.
    @discardableResult
    mutating func removeAll(where shouldRemove: (Value) -> Bool) -> Int {
        let doomed = index.compactMap { key, slot in
            nodes[slot].value.map(shouldRemove) == true ? key : nil
        }
        for key in doomed { removeValue(for: key) }
        return doomed.count
    }

    /// Removes everything.
    mutating func removeAll() {
        self = LRUTable(costLimit: costLimit, countLimit: countLimit)
    }

    /// The keys from the most to the least recently used.
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var slot = newest
        while slot != -1 {
            keys.append(nodes[slot].key)
            slot = nodes[slot].older
        }
        return keys
    }

    private mutating func promote(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        link(slot)
    }

    /// Links `slot` in as the newest.
    private mutating func link(_ slot: Int) {
        nodes[slot].older = newest
        nodes[slot].newer = -1
        if newest != -1 { nodes[newest].newer = slot }
        newest = slot
        if oldest == -1 { oldest = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (nodes[slot].newer, nodes[slot].older)
        if newer != -1 { nodes[newer].older = older } else { newest = older }
        if older != -1 { nodes[older].newer = newer } else { oldest = newer }
        nodes[slot].newer = -1
        nodes[slot].older = -1
    }
}
