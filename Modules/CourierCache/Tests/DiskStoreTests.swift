import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Subprocess
import SystemPackage
import Testing

@testable import CourierCache

/// The SQLite disk tier: round trips, privacy, size, damage, expiry,
/// concurrency, and two processes on one directory.
struct DiskStoreTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func entriesReadBackWholeInlineAndInFiles() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await DiskStore.open(directory: directory, inlineLimit: 64)
            var small = entry("small")
            small.variantFields = [.acceptLanguage: "en"]
            let large = entry(String(repeating: "L", count: 100_000))
            let empty = entry("")
            for (name, value) in [("small", small), ("large", large), ("empty", empty)] {
                try await store.store(value, for: CacheKey(hashing: name))
            }
            #expect(try await store.entry(for: CacheKey(hashing: "small"), now: now) == small)
            #expect(try await store.entry(for: CacheKey(hashing: "large"), now: now) == large)
            #expect(try await store.entry(for: CacheKey(hashing: "empty"), now: now) == empty)
            #expect(try await store.entry(for: CacheKey(hashing: "missing"), now: now) == nil)
            #expect(Self.bodyFiles(in: directory).count == 1)
            // Replacing the large entry with a small one removes its file.
            try await store.store(small, for: CacheKey(hashing: "large"))
            #expect(Self.bodyFiles(in: directory).isEmpty)
        }
    }

    @Test func theDirectoryIs0700AndEveryFile0600() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await DiskStore.open(
                directory: directory.appendingPathComponent("nested/api"), inlineLimit: 8)
            try await store.store(entry(String(repeating: "x", count: 100)), for: CacheKey(hashing: "k"))
            let root = directory.appendingPathComponent("nested/api")
            #expect(try Self.mode(of: root) == 0o700)
            let names = try FileManager.default.contentsOfDirectory(atPath: root.path)
            #expect(names.contains("cache.sqlite") && names.contains("cache.sqlite-wal"))
            #expect(names.contains { $0.hasSuffix(".body") })
            for name in names {
                #expect(try Self.mode(of: root.appendingPathComponent(name)) == 0o600, "\(name)")
            }
        }
    }

    @Test func overItsSizeTheLeastRecentlyReadEntriesGo() async throws {
        try await withTemporaryDirectory { directory in
            let body = String(repeating: "x", count: 1_000)
            let size = entry(body).size
            let store = try await DiskStore.open(directory: directory, sizeLimit: size * 3)
            for name in ["a", "b", "c"] { try await store.store(entry(body), for: CacheKey(hashing: name)) }
            // Reading "a" makes it the most recent, so "b" is the oldest.
            _ = try await store.entry(for: CacheKey(hashing: "a"), now: Date())
            try await store.store(entry(body), for: CacheKey(hashing: "d"))
            #expect(try await store.entry(for: CacheKey(hashing: "b"), now: now) == nil)
            for name in ["a", "c", "d"] {
                #expect(try await store.entry(for: CacheKey(hashing: name), now: now) != nil)
            }
            #expect(try await store.totalSize() == size * 3)
            // An entry larger than the whole store is not kept.
            try await store.store(
                entry(String(repeating: "y", count: size * 4)), for: CacheKey(hashing: "huge"))
            #expect(try await store.entry(for: CacheKey(hashing: "huge"), now: now) == nil)
        }
    }

    @Test func aDamagedBodyFileIsAMissAndIsRemoved() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await DiskStore.open(directory: directory, inlineLimit: 8)
            for damage in ["truncate", "flip", "delete"] {
                let key = CacheKey(hashing: damage)
                try await store.store(entry(String(repeating: "b", count: 500)), for: key)
                let file = try #require(Self.bodyFiles(in: directory).first)
                var bytes = try [UInt8](Data(contentsOf: file))
                switch damage {
                case "truncate": try Data(bytes.prefix(100)).write(to: file)
                case "flip":
                    bytes[250] ^= 0x20
                    try Data(bytes).write(to: file)
                default: try FileManager.default.removeItem(at: file)
                }
                #expect(try await store.entry(for: key, now: now) == nil, "\(damage)")
                #expect(try await store.count() == 0, "\(damage)")
                #expect(Self.bodyFiles(in: directory).isEmpty, "\(damage)")
            }
            #expect(await store.damagedEntriesRemoved == 3)
        }
    }

    @Test func aDamagedRowIsAMissAndIsRemoved() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await DiskStore.open(directory: directory)
            let key = CacheKey(hashing: "k")
            try await store.store(entry("hello"), for: key)
            // Another writer (a bug, a disk fault) leaves the row's fields unreadable.
            let database = try SQLiteDatabase(path: directory.appendingPathComponent("cache.sqlite").path)
            try database.execute("UPDATE entries SET fields = x'0000000501'")
            #expect(try await store.entry(for: key, now: now) == nil)
            #expect(try await store.count() == 0)
            try await store.store(entry("hello"), for: key)
            try database.execute("UPDATE entries SET body = x'00'")
            #expect(try await store.entry(for: key, now: now) == nil)
        }
    }

    @Test func aDamagedDatabaseIsReplaced() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent("cache.sqlite")
            try Data(repeating: 0x5a, count: 8_192).write(to: path)
            let store = try await DiskStore.open(directory: directory)
            try await store.store(entry("fresh start"), for: CacheKey(hashing: "k"))
            #expect(
                try await store.entry(for: CacheKey(hashing: "k"), now: now)?.body
                    == Array("fresh start".utf8)
            )
        }
    }

    @Test func expiredEntriesAreNotReturnedAndCleanUpRemovesThem() async throws {
        try await withTemporaryDirectory { directory in
            let clock = TestClock()
            let store = try await DiskStore.open(directory: directory, inlineLimit: 8)
            let soon = clock.date.addingTimeInterval(10)
            try await store.store(
                entry("short-lived body", at: clock.date, expires: soon), for: CacheKey(hashing: "a"))
            try await store.store(entry("b", at: clock.date, expires: soon), for: CacheKey(hashing: "b"))
            try await store.store(entry("c", at: clock.date, expires: nil), for: CacheKey(hashing: "c"))
            #expect(try await store.entry(for: CacheKey(hashing: "a"), now: clock.date) != nil)
            clock.advance(by: .seconds(10))
            #expect(try await store.entry(for: CacheKey(hashing: "a"), now: clock.date) == nil)
            #expect(try await store.removeExpired(now: clock.date) == 1)  // "b"; "a" went when read
            #expect(try await store.count() == 1)
            #expect(Self.bodyFiles(in: directory).isEmpty)
            try await store.removeAll()
            #expect(try await store.count() == 0)
            #expect(try await store.totalSize() == 0)
        }
    }

    @Test func concurrentReadersAndWritersInOneProcess() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await DiskStore.open(directory: directory, inlineLimit: 256)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for round in 0..<50 {
                            let key = CacheKey(hashing: "\(round / 2 % 10)")
                            let body = String(repeating: key.digest, count: worker * 100 + 1)
                            if round.isMultiple(of: 2) {
                                try await store.store(entry(body), for: key)
                            } else if let found = try await store.entry(for: key, now: Date()) {
                                // Always some writer's whole body for this key, never a mix.
                                #expect(Set(found.body) == Set(key.digest.utf8))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.count() == 10)
        }
    }

    @Test func twoProcessesShareOneDirectory() async throws {
        try await withTemporaryDirectory { directory in
            // The probe writes 200 entries (half of them in files) while this
            // process writes 200 of its own and reads the probe's.
            async let probe = Self.probe(directory, "put", "other", "200", "20000")
            let store = try await DiskStore.open(directory: directory)
            for index in 0..<200 {
                let body = Array("mine \(index)".utf8)
                try await store.store(
                    CacheEntry(status: 200, headerFields: [:], body: body, storedAt: now, expiresAt: nil),
                    for: CacheKey(hashing: "mine-\(index)"))
            }
            let written = try await probe
            #expect(written.succeeded, "\(written.printed)")
            // This process reads every entry the other wrote…
            var theirs = 0
            for index in 0..<200 {
                let found = try await store.entry(for: CacheKey(hashing: "other-\(index)"), now: now)
                if found?.body == Array("other \(index)".utf8)
                    + Array(repeating: UInt8(ascii: "."), count: 20_000)
                {
                    theirs += 1
                }
            }
            #expect(theirs == 200)
            // …and the other process reads every entry this one wrote.
            let read = try await Self.probe(directory, "get", "mine", "200")
            #expect(read.succeeded)
            #expect(read.printed.contains("found 200"), "\(read.printed)")
            #expect(try await store.count() == 400)
        }
    }

    @Test func aDirectoryItCannotMakeIsATypedError() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent("not-a-directory")
            try Data("x".utf8).write(to: file)
            do throws(CacheStoreError) {
                _ = try await DiskStore.open(directory: file.appendingPathComponent("cache"))
                Issue.record("a store opened under a file")
            } catch {
                #expect(error.code == .io)
                #expect(error.message.contains("not-a-directory"))
            }
        }
    }

    // MARK: - Helpers

    static func bodyFiles(in directory: URL) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".body") }.map { directory.appendingPathComponent($0) }
    }

    static func mode(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
    }

    /// Runs `courier-cache-probe` (built beside this test binary) with
    /// `arguments`; whether it exited 0, and what it printed.
    static func probe(
        _ directory: URL, _ arguments: String...
    ) async throws -> (succeeded: Bool, printed: String) {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("courier-cache-probe")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: binary.path])
        }
        let result = try await Subprocess.run(
            .path(.init(binary.path)), arguments: Arguments([directory.path] + arguments),
            output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
        return (result.terminationStatus.isSuccess, result.standardOutput + result.standardError)
    }
}
