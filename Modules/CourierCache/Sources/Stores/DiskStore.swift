import CourierCore
public import Foundation
import HTTPTypes

/// The disk tier: SQLite in a directory the store owns, shared safely by
/// several processes, bounded in size.
///
/// - **Layout.** `cache.sqlite` (WAL journal, so readers never wait for a
///   writer and several processes share one directory) holds one row per
///   entry; bodies over ``inlineLimit`` live in files beside it, written to a
///   temporary file and renamed into place (YYCache's split: small rows stay
///   fast, big bodies stay out of the database). The directory is 0700,
///   every file 0600.
/// - **Size.** Over ``sizeLimit`` or ``countLimit``, the least recently read
///   entries go first. Reads are remembered in memory and written with the
///   next write, so a read costs no write.
/// - **Damage.** A row that does not decode, a body file that is missing or
///   whose length or checksum is wrong, is a miss and is removed. A database
///   SQLite reports damaged is replaced by an empty one.
/// - **Threads.** Every SQLite call and file operation runs on the store's
///   own thread (the actor's executor), never on the concurrency pool.
///
/// ```swift
/// let disk = try await DiskStore.open(directory: cachesDirectory.appending(path: "api"))
/// let cache = ResponseCache(disk: disk)
/// ```
public actor DiskStore: CacheStore {
    /// The directory the store owns.
    public nonisolated let directory: URL
    /// The most bytes the entries may take (``CacheEntry/size``).
    public nonisolated let sizeLimit: Int
    /// The most entries it may hold.
    public nonisolated let countLimit: Int
    /// Bodies larger than this many bytes are kept in files of their own.
    public nonisolated let inlineLimit: Int
    private nonisolated let executor: StoreExecutor
    private let busyTimeout: Duration
    private var database: SQLiteDatabase?
    /// Reads not yet written to `accessed_at`.
    private var touches: [String: Double] = [:]
    /// How many damaged entries this store found and removed.
    public private(set) var damagedEntriesRemoved = 0

    /// Runs the actor's jobs on the store's own thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens the store in `directory`, creating it (0700) and its database
    /// when missing.
    /// - Parameters:
    ///   - directory: A directory the store owns; several processes may open
    ///     the same one.
    ///   - sizeLimit: The most bytes the entries may take: 50 MiB by default.
    ///   - countLimit: The most entries: 100,000.
    ///   - inlineLimit: Bodies larger than this go to files: 16 KiB.
    ///   - busyTimeout: How long a write waits for another process's write
    ///     before failing: 5 s.
    /// - Throws: ``CacheStoreError`` when the directory or the database
    ///   cannot be made.
    /// - Returns: The open store, its database ready.
    public static func open(
        directory: URL, sizeLimit: Int = 50 << 20, countLimit: Int = 100_000, inlineLimit: Int = 16 << 10,
        busyTimeout: Duration = .seconds(5)
    ) async throws(CacheStoreError) -> DiskStore {
        let store = DiskStore(directory, sizeLimit, countLimit, inlineLimit, busyTimeout)
        try await store.prepare()
        return store
    }

    private init(
        _ directory: URL, _ sizeLimit: Int, _ countLimit: Int, _ inlineLimit: Int, _ busyTimeout: Duration
    ) {
        self.directory = directory
        self.sizeLimit = sizeLimit
        self.countLimit = countLimit
        self.inlineLimit = inlineLimit
        self.busyTimeout = busyTimeout
        self.executor = StoreExecutor(name: "courier-cache")
    }

    deinit {
        executor.stop()
    }

    private var databasePath: String { directory.appendingPathComponent("cache.sqlite").path }

    // MARK: - CacheStore

    /// The entry under `key`, unless missing, expired (removed) or damaged (removed).
    public func entry(for key: CacheKey, now: Date) throws(CacheStoreError) -> CacheEntry? {
        let row: StoredRow?
        do {
            let database = try open()
            row = try database.retryingWhileBusy(for: busyTimeout) { () throws(SQLiteError) -> StoredRow? in
                let statement = try database.statement(
                    "SELECT status, fields, vary, body, body_file, body_length, body_check, stored_at,"
                        + " expires_at, tags FROM entries WHERE key = ?1")
                try statement.bind(.text(key.digest))
                return try statement.single(StoredRow.init)
            }
        } catch {
            try recover(from: error)
            return nil
        }
        guard let row else { return nil }
        if let expiry = row.expiresAt, expiry <= now.timeIntervalSince1970 {
            try removeEntry(for: key)
            return nil
        }
        guard let entry = row.entry(in: directory) else {
            damagedEntriesRemoved += 1
            try removeEntry(for: key)
            return nil
        }
        // Recency is real time, whatever clock expiry uses.
        touches[key.digest] = Date().timeIntervalSince1970
        if touches.count >= 256 { try? write { _ throws(SQLiteError) in } }
        return entry
    }

    /// Stores `entry` under `key`, then evicts the least recently read
    /// entries while the store is over its size. An entry larger than the
    /// whole store is not kept (and the old one is removed).
    public func store(_ entry: CacheEntry, for key: CacheKey) throws(CacheStoreError) {
        guard entry.size <= sizeLimit else { return try removeEntry(for: key) }
        var file: String?
        if entry.body.count > inlineLimit {
            let name = DiskFiles.bodyName(for: key)
            try DiskFiles.writeAtomically(entry.body, named: name, in: directory)
            file = name
        }
        do throws(CacheStoreError) {
            let obsolete = try write { database throws(SQLiteError) in
                var obsolete = try Self.delete(key.digest, database)
                try database.statement(
                    "INSERT INTO entries (key, status, fields, vary, body, body_file, body_length, body_check,"
                        + " stored_at, expires_at, accessed_at, size, tags)"
                        + " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
                ).bind(
                    .text(key.digest), .integer(Int64(entry.status)),
                    .blob(EntryCoding.encode(entry.headerFields)),
                    .blob(EntryCoding.encode(entry.variantFields)), file == nil ? .blob(entry.body) : .null,
                    file.map(SQLiteValue.text) ?? .null, .integer(Int64(entry.body.count)),
                    .integer(EntryCoding.checksum(entry.body)), .real(entry.storedAt.timeIntervalSince1970),
                    entry.expiresAt.map { .real($0.timeIntervalSince1970) } ?? .null,
                    .real(Date().timeIntervalSince1970), .integer(Int64(entry.size)),
                    .blob(EntryCoding.encode(entry.tags))
                ).run()
                for tag in entry.tags {
                    try database.statement("INSERT OR IGNORE INTO entry_tags (tag, key) VALUES (?1, ?2)")
                        .bind(.text(tag.digest), .text(key.digest)).run()
                }
                obsolete += try evict(database)
                return obsolete
            }
            for name in obsolete { DiskFiles.remove(name, in: directory) }
        } catch {
            if let file { DiskFiles.remove(file, in: directory) }
            throw error
        }
    }

    /// Removes the entry under `key` and its body file.
    public func removeEntry(for key: CacheKey) throws(CacheStoreError) {
        touches[key.digest] = nil
        let files = try write { database throws(SQLiteError) in try Self.delete(key.digest, database) }
        for name in files { DiskFiles.remove(name, in: directory) }
    }

    /// Removes every entry and every body file.
    public func removeAll() throws(CacheStoreError) {
        touches = [:]
        try write { database throws(SQLiteError) in try database.execute("DELETE FROM entries") }
        for file in DiskFiles.bodyFiles(in: directory) { DiskFiles.remove(file.name, in: directory) }
    }

    /// Removes the entries expired by `now`, and body files no entry names
    /// that are older than a minute (left by a process that stopped between
    /// writing a body and its row).
    @discardableResult
    public func removeExpired(now: Date) throws(CacheStoreError) -> Int {
        let (count, files) = try write { database throws(SQLiteError) -> (Int, [String]) in
            let select = try database.statement(
                "SELECT key, body_file FROM entries WHERE expires_at IS NOT NULL AND expires_at <= ?1")
            try select.bind(.real(now.timeIntervalSince1970))
            var doomed: [(String, String?)] = []
            while try select.step() { doomed.append((select.text(0) ?? "", select.text(1))) }
            var files: [String] = []
            for (key, _) in doomed { files += try Self.delete(key, database) }
            return (doomed.count, files)
        }
        for name in files { DiskFiles.remove(name, in: directory) }
        try removeOrphanedFiles()
        return count
    }

    /// Removes the entries tagged `tag` and their body files. - Returns: How many.
    @discardableResult
    public func removeEntries(tagged tag: CacheTag) throws(CacheStoreError) -> Int {
        let (count, files) = try write { database throws(SQLiteError) -> (Int, [String]) in
            let select = try database.statement("SELECT key FROM entry_tags WHERE tag = ?1")
            try select.bind(.text(tag.digest))
            var keys: [String] = []
            while try select.step() { keys.append(select.text(0) ?? "") }
            var files: [String] = []
            for key in keys { files += try Self.delete(key, database) }
            return (keys.count, files)
        }
        for name in files { DiskFiles.remove(name, in: directory) }
        return count
    }

    /// The bytes the entries take.
    public func totalSize() throws(CacheStoreError) -> Int {
        try number("SELECT size FROM totals WHERE id = 0")
    }

    /// How many entries there are.
    public func count() throws(CacheStoreError) -> Int {
        try number("SELECT count(*) FROM entries")
    }

    /// The one number `sql` selects; 0 when the database had to be replaced.
    private func number(_ sql: String) throws(CacheStoreError) -> Int {
        do {
            return try open().statement(sql).single { Int($0.integer(0)) } ?? 0
        } catch {
            try recover(from: error)
            return 0
        }
    }

    // MARK: - Database

    /// Creates the directory and the schema (a damaged database is replaced).
    private func prepare() throws(CacheStoreError) {
        try DiskFiles.makePrivateDirectory(directory)
        do {
            _ = try open()
        } catch {
            try recover(from: error)
            _ = try? open()
        }
    }

    /// The connection, opened and set up on first use.
    private func open() throws(SQLiteError) -> SQLiteDatabase {
        if let database { return database }
        do {
            try DiskFiles.makePrivateFile(databasePath)
        } catch {
            throw SQLiteError(code: 14, message: error.message)  // SQLITE_CANTOPEN
        }
        let database = try SQLiteDatabase(path: databasePath)
        database.setBusyTimeout(milliseconds: Int32(clamping: busyTimeout.milliseconds))
        try database.retryingWhileBusy(for: busyTimeout) { () throws(SQLiteError) in
            let mode = try database.statement("PRAGMA journal_mode").single { $0.text(0)?.lowercased() }
            if mode != "wal" {
                try database.execute("PRAGMA journal_mode = WAL")
            }
            try database.execute("PRAGMA synchronous = NORMAL")
            try DiskSchema.create(database)
        }
        self.database = database
        return database
    }

    /// Runs `body` in a write transaction, with the remembered reads written first.
    private func write<T>(_ body: (SQLiteDatabase) throws(SQLiteError) -> T) throws(CacheStoreError) -> T {
        do throws(SQLiteError) {
            let database = try open()
            let touched = touches
            let result = try database.retryingWhileBusy(for: busyTimeout) { () throws(SQLiteError) -> T in
                try database.writeTransaction { () throws(SQLiteError) -> T in
                    for (key, time) in touched {
                        try database.statement("UPDATE entries SET accessed_at = ?2 WHERE key = ?1")
                            .bind(.text(key), .real(time)).run()
                    }
                    return try body(database)
                }
            }
            touches = [:]
            return result
        } catch {
            try recover(from: error)
            throw CacheStoreError(.database, "the cache database failed: \(error)", underlying: error)
        }
    }

    /// A damaged database is replaced by an empty one (its entries are lost,
    /// as a cache's may be); any other failure is passed on.
    private func recover(from error: SQLiteError) throws(CacheStoreError) {
        guard error.isCorruption else {
            throw CacheStoreError(.database, "the cache database failed: \(error)", underlying: error)
        }
        database = nil
        touches = [:]
        for suffix in ["", "-wal", "-shm"] { unlink(databasePath + suffix) }
        for file in DiskFiles.bodyFiles(in: directory) { DiskFiles.remove(file.name, in: directory) }
        damagedEntriesRemoved += 1
    }

    /// Deletes the row under `key`. - Returns: Its body file, to remove after the commit.
    private static func delete(_ key: String, _ database: SQLiteDatabase) throws(SQLiteError) -> [String] {
        let select = try database.statement("SELECT body_file FROM entries WHERE key = ?1")
        try select.bind(.text(key))
        let file = try select.single { $0.text(0) } ?? nil
        try database.statement("DELETE FROM entries WHERE key = ?1").bind(.text(key)).run()
        return file.map { [$0] } ?? []
    }

    /// Deletes the least recently read rows until the total size and the
    /// count fit. - Returns: Their body files.
    private func evict(_ database: SQLiteDatabase) throws(SQLiteError) -> [String] {
        var files: [String] = []
        while try isOverLimit(database) {
            let oldest = try database.statement("SELECT key FROM entries ORDER BY accessed_at LIMIT 16")
            var keys: [String] = []
            while try oldest.step() { keys.append(oldest.text(0) ?? "") }
            guard !keys.isEmpty else { return files }
            for key in keys {
                files += try Self.delete(key, database)
                if try !isOverLimit(database) { return files }
            }
        }
        return files
    }

    private func isOverLimit(_ database: SQLiteDatabase) throws(SQLiteError) -> Bool {
        let total = try database.statement("SELECT size FROM totals WHERE id = 0").single { $0.integer(0) }
        if Int(total ?? 0) > sizeLimit { return true }
        let count = try database.statement("SELECT count(*) FROM entries").single { $0.integer(0) }
        return Int(count ?? 0) > countLimit
    }

    private func removeOrphanedFiles() throws(CacheStoreError) {
        let named = try write { database throws(SQLiteError) -> Set<String> in
            let select = try database.statement("SELECT body_file FROM entries WHERE body_file IS NOT NULL")
            var names = Set<String>()
            while try select.step() { if let name = select.text(0) { names.insert(name) } }
            return names
        }
        let cutoff = Date().addingTimeInterval(-60)
        for file in DiskFiles.bodyFiles(in: directory)
        where !named.contains(file.name) && file.modified < cutoff {
            DiskFiles.remove(file.name, in: directory)
        }
    }
}

/// A row as read, before it is checked.
private struct StoredRow {
    let status: Int64
    let fields: [UInt8]?
    let vary: [UInt8]?
    let body: [UInt8]?
    let bodyFile: String?
    let bodyLength: Int64
    let bodyCheck: Int64
    let storedAt: Double
    let expiresAt: Double?
    let tags: [UInt8]?

    init(_ statement: SQLiteStatement) {
        status = statement.integer(0)
        fields = statement.blob(1)
        vary = statement.blob(2)
        body = statement.blob(3)
        bodyFile = statement.text(4)
        bodyLength = statement.integer(5)
        bodyCheck = statement.integer(6)
        storedAt = statement.real(7)
        expiresAt = statement.isNull(8) ? nil : statement.real(8)
        tags = statement.blob(9)
    }

    /// The entry, or `nil` when anything about the row or its file is wrong.
    func entry(in directory: URL) -> CacheEntry? {
        guard (100...599).contains(status), let fields = fields.flatMap(EntryCoding.decodeFields),
            let vary = vary.flatMap(EntryCoding.decodeFields),
            let tags = EntryCoding.decodeTags(self.tags ?? [])
        else { return nil }
        let bytes: [UInt8]?
        switch (body, bodyFile) {
        case (let inline?, nil): bytes = inline
        case (nil, let name?): bytes = DiskFiles.read(name, in: directory)
        default: bytes = nil
        }
        guard let bytes, bytes.count == bodyLength, EntryCoding.checksum(bytes) == bodyCheck else {
            return nil
        }
        return CacheEntry(
            status: Int(status), headerFields: fields, body: bytes,
            storedAt: Date(timeIntervalSince1970: storedAt),
            expiresAt: expiresAt.map { Date(timeIntervalSince1970: $0) }, variantFields: vary, tags: tags)
    }
}
