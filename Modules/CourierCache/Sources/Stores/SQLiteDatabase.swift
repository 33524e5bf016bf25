import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failure SQLite reported: its result code and message.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code.
    let code: Int32
    /// SQLite's message, or what the wrapper was doing.
    let message: String

    /// Whether the database file itself is damaged (not a busy or full disk):
    /// the disk store starts over with a new one.
    var isCorruption: Bool {
        let primary = code & 0xff
        return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB
    }

    /// Whether another connection holds a lock this one needs: worth trying again.
    var isBusy: Bool {
        let primary = code & 0xff
        return primary == SQLITE_BUSY || primary == SQLITE_LOCKED
    }

    var description: String { "SQLite error \(code): \(message)" }
}

/// One SQLite connection and its prepared statements. Not thread-safe: the
/// disk store uses it from its own thread only (it is the store actor's
/// state), which is also why the connection is opened without SQLite's own
/// mutex.
final class SQLiteDatabase {
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating it when missing) the database at `path`.
    init(path: String) throws(SQLiteError) {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close_v2(opened)
            throw SQLiteError(code: status, message: message)
        }
        sqlite3_extended_result_codes(opened, 1)
        handle = opened
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement.handle) }
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status, doing: sql) }
    }

    /// How long a statement waits for another connection's lock before
    /// failing with `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// The prepared statement for `sql`, reset and ready to bind; prepared
    /// once per connection.
    func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var prepared: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &prepared, nil)
        guard status == SQLITE_OK, let prepared else { throw error(status, doing: sql) }
        let statement = SQLiteStatement(prepared, sql: sql, database: self)
        statements[sql] = statement
        return statement
    }

    /// Runs `body`, again and again while SQLite answers that another
    /// connection holds a lock, for up to `timeout`. SQLite's own busy
    /// handler covers most waits, but not all: switching a new database to
    /// WAL, or beginning a write while another process does, may fail at
    /// once. Sleeps on the calling thread — the disk store's own.
    func retryingWhileBusy<T>(for timeout: Duration, _ body: () throws(SQLiteError) -> T) throws(SQLiteError)
        -> T
    {
        let start = ContinuousClock.now
        var pause: UInt32 = 1_000
        while true {
            do {
                return try body()
            } catch  where error.isBusy && ContinuousClock.now - start < timeout {
                usleep(pause)
                pause = min(pause * 2, 50_000)
            }
        }
    }

    /// Runs `body` in a write transaction (taken at once, so two processes
    /// never deadlock upgrading a read), committed when it returns and rolled
    /// back when it throws.
    func writeTransaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The error for a result code, with SQLite's message and the
    /// statement's first words.
    func error(_ status: Int32, doing sql: String) -> SQLiteError {
        let statement = sql.split(separator: " ", maxSplits: 3).prefix(3).joined(separator: " ")
        return SQLiteError(
            code: status, message: "\(String(cString: sqlite3_errmsg(handle))) (\(statement) …)")
    }
}

/// A prepared statement: bind, step, read columns. Owned by its database.
final class SQLiteStatement {
    fileprivate let handle: OpaquePointer
    private let sql: String
    private unowned let database: SQLiteDatabase

    fileprivate init(_ handle: OpaquePointer, sql: String, database: SQLiteDatabase) {
        self.handle = handle
        self.sql = sql
        self.database = database
    }

    fileprivate func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds the parameters `?1`, `?2`, … in order.
    @discardableResult
    func bind(_ values: SQLiteValue...) throws(SQLiteError) -> SQLiteStatement {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null:
                status = sqlite3_bind_null(handle, index)
            case .integer(let number):
                status = sqlite3_bind_int64(handle, index, number)
            case .real(let number):
                status = sqlite3_bind_double(handle, index, number)
            case .text(let text):
                var text = text
                status = text.withUTF8 { bytes in
                    courier_sqlite_bind_text(handle, index, bytes.baseAddress, Int32(bytes.count))
                }
            case .blob(let bytes) where bytes.isEmpty:
                // A zero-length blob, not NULL, for an empty body.
                status = sqlite3_bind_zeroblob(handle, index, 0)
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { raw in
                    courier_sqlite_bind_blob(handle, index, raw.baseAddress, Int32(raw.count))
                }
            }
            guard status == SQLITE_OK else { throw database.error(status, doing: sql) }
        }
        return self
    }

    /// Steps once. - Returns: Whether a row is there to read. Step until it
    /// returns `false`, or use ``single(_:)``.
    func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(status, doing: sql)
        }
    }

    /// The first row, read by `read`, then the statement reset — a
    /// statement left on a row would keep its read transaction open, and
    /// every later read of the connection on the same, old snapshot.
    func single<T>(_ read: (SQLiteStatement) -> T) throws(SQLiteError) -> T? {
        defer { sqlite3_reset(handle) }
        return try step() ? read(self) : nil
    }

    /// Steps until done, for statements that return no rows.
    func run() throws(SQLiteError) {
        while try step() {}
    }

    /// Whether a column of the current row is NULL.
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    /// An integer column.
    func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    /// A real column.
    func real(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    /// A text column (`nil` when NULL).
    func text(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: text)
    }
    /// A blob column (`nil` when NULL; empty for a zero-length blob).
    func blob(_ column: Int32) -> [UInt8]? {
        if isNull(column) { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}

/// A value to bind to a statement.
enum SQLiteValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}
