import Testing

@testable import CourierCurl

/// The response buffer pool: reuse by size class, copy-on-write safety, bounds.
struct CurlBufferPoolTests {
    private static func address(_ array: [UInt8]) -> UnsafeRawPointer? {
        array.withUnsafeBytes { $0.baseAddress }
    }

    @Test func smallBodiesAreNotPooledAndLargeOnesGetAWholeClass() {
        let pool = CurlBufferPool(capacityBytes: 1 << 20)
        #expect(pool.take(atLeast: 764).capacity == 0)
        let buffer = pool.take(atLeast: 100_000)
        #expect(buffer.isEmpty)
        #expect(buffer.capacity >= 128 * 1024)
        #expect(pool.take(atLeast: 5 << 20).capacity == 0)  // above the largest class
    }

    @Test func aBufferLetGoIsWrittenIntoAgain() {
        let pool = CurlBufferPool(capacityBytes: 1 << 20)
        var first = pool.take(atLeast: 100_000)
        first.append(contentsOf: repeatElement(7, count: 100_000))
        let storage = Self.address(first)
        pool.give(first)
        first = []  // the receiver lets its copy go
        let second = pool.take(atLeast: 90_000)
        #expect(Self.address(second) == storage)
        #expect(second.isEmpty)
        #expect(pool.pooledBytes == 0)
    }

    @Test func aBufferStillHeldIsNeverWrittenThrough() {
        let pool = CurlBufferPool(capacityBytes: 1 << 20)
        var held = pool.take(atLeast: 20_000)
        held.append(contentsOf: repeatElement(1, count: 20_000))
        pool.give(held)  // the transfer's copy; `held` is the caller's
        var next = pool.take(atLeast: 20_000)
        next.append(contentsOf: repeatElement(2, count: 20_000))
        #expect(Self.address(next) != Self.address(held))
        #expect(held.allSatisfy { $0 == 1 })
        #expect(held.count == 20_000)
    }

    @Test func theOldestBufferIsTakenFirst() {
        let pool = CurlBufferPool(capacityBytes: 1 << 20)
        var buffers = (0..<3).map { _ in pool.take(atLeast: 20_000) }
        let addresses = buffers.map(Self.address)
        while !buffers.isEmpty { pool.give(buffers.removeFirst()) }
        #expect(Self.address(pool.take(atLeast: 20_000)) == addresses[0])
    }

    @Test func thePoolHoldsNoMoreThanItsCapacity() {
        let pool = CurlBufferPool(capacityBytes: 200 * 1024)
        for _ in 0..<10 { pool.give(pool.take(atLeast: 60_000)) }
        let bytes = pool.pooledBytes
        #expect(bytes > 0)
        let kept = (0..<10).map { _ in pool.take(atLeast: 60_000) }
        for buffer in kept { pool.give(buffer) }
        #expect(pool.pooledBytes <= 200 * 1024)
        let none = CurlBufferPool(capacityBytes: 0)
        none.give(none.take(atLeast: 60_000))
        #expect(none.pooledBytes == 0)
    }
}
