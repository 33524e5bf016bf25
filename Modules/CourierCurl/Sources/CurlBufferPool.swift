@_spi(Locking) import CourierCore

/// Response buffers kept for reuse, by size class: a body of 100 KB
/// allocated and freed per request makes glibc hand the pages back to the
/// kernel when the heap's top grows past its trim threshold, and fault them
/// in again (25 page faults a request) for the next one.
///
/// Each transfer gives its body's buffer here when it ends, though the
/// caller received the same array in the response: arrays are
/// copy-on-write, so once the caller lets its copy go the pool's is the only
/// one, and the next body of its class is written into it, pages and all.
/// A buffer still shared when it is taken is replaced by a fresh one
/// (`removeAll(keepingCapacity:)` on a shared array allocates): the
/// caller's bytes are never written through.
///
/// Classes are powers of two from 16 KiB (smaller bodies come from malloc's
/// thread caches at no such cost) to 4 MiB; the pool holds at most
/// `capacityBytes` in all.
final class CurlBufferPool: Sendable {
    static let smallestClass = 14  // 16 KiB
    static let largestClass = 22  // 4 MiB

    private struct Shelves {
        var buffers: [[[UInt8]]] = Array(repeating: [], count: largestClass - smallestClass + 1)
        var bytes = 0
    }

    private let shelves = Locked(Shelves())
    private let capacityBytes: Int

    init(capacityBytes: Int) {
        self.capacityBytes = capacityBytes
    }

    /// Whether a body of `count` bytes is worth a pooled buffer.
    static func pools(_ count: Int) -> Bool {
        count >= 1 << smallestClass && count <= 1 << largestClass
    }

    /// An empty array whose capacity holds at least `count` bytes: a pooled
    /// one when its class has one, else a new one of the class's size.
    func take(atLeast count: Int) -> [UInt8] {
        guard Self.pools(count) else { return [] }
        let shelf = Self.shelf(fitting: count)
        // Bound straight from the lock's result: a second reference (an
        // intermediate constant) would make the array look shared and
        // `removeAll(keepingCapacity:)` allocate anew.
        guard
            var buffer = shelves.withLock({ shelves -> [UInt8]? in
                // The oldest first: the likeliest to have been let go by
                // whoever received it, so that its storage is ours alone again.
                guard !shelves.buffers[shelf].isEmpty else { return nil }
                let buffer = shelves.buffers[shelf].removeFirst()
                shelves.bytes -= buffer.capacity
                return buffer
            })
        else {
            var fresh: [UInt8] = []
            fresh.reserveCapacity(1 << (shelf + Self.smallestClass))
            return fresh
        }
        buffer.removeAll(keepingCapacity: true)
        return buffer
    }

    /// Keeps `buffer` for a later body, if its capacity fits a class and
    /// the pool has room.
    func give(_ buffer: [UInt8]) {
        let capacity = buffer.capacity
        guard capacity >= 1 << Self.smallestClass, capacity < 1 << (Self.largestClass + 1) else { return }
        // The largest class the capacity fully covers.
        let shelf = Int.bitWidth - 1 - capacity.leadingZeroBitCount - Self.smallestClass
        shelves.withLock { shelves in
            guard shelves.bytes + capacity <= capacityBytes else { return }
            shelves.buffers[shelf].append(buffer)
            shelves.bytes += capacity
        }
    }

    /// Bytes of capacity the pool holds now.
    var pooledBytes: Int { shelves.withLock { $0.bytes } }

    /// The smallest class at least `count` bytes large.
    private static func shelf(fitting count: Int) -> Int {
        let exponent = Int.bitWidth - (count - 1).leadingZeroBitCount
        return max(exponent, smallestClass) - smallestClass
    }
}
