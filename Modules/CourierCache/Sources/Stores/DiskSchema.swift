/// The disk store's tables, created once per database. `totals` keeps the
/// size of all entries, maintained by triggers inside the same transactions
/// as the rows, so every process sharing the database sees the same figure
/// without summing the table. `entry_tags` finds entries by tag; a trigger
/// keeps it in step with `entries`.
enum DiskSchema {
    /// The schema this code writes; a database of another version is emptied and rebuilt.
    static let version = 2

    static func create(_ database: SQLiteDatabase) throws(SQLiteError) {
        let found = try database.statement("PRAGMA user_version").single { Int($0.integer(0)) } ?? 0
        guard found != version else { return }
        try database.writeTransaction { () throws(SQLiteError) in
            if found != 0 {
                try database.execute(
                    "DROP TABLE IF EXISTS entries; DROP TABLE IF EXISTS totals; DROP TABLE IF EXISTS entry_tags"
                )
            }
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS entries (
                    key TEXT PRIMARY KEY NOT NULL,
                    status INTEGER NOT NULL,
                    fields BLOB NOT NULL,
                    vary BLOB NOT NULL,
                    body BLOB,
                    body_file TEXT,
                    body_length INTEGER NOT NULL,
                    body_check INTEGER NOT NULL,
                    stored_at REAL NOT NULL,
                    expires_at REAL,
                    accessed_at REAL NOT NULL,
                    size INTEGER NOT NULL,
                    tags BLOB NOT NULL
                );
                CREATE TABLE IF NOT EXISTS entry_tags (
                    tag TEXT NOT NULL,
                    key TEXT NOT NULL,
                    PRIMARY KEY (tag, key)
                ) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS entry_tags_by_key ON entry_tags (key);
                CREATE TRIGGER IF NOT EXISTS entry_tags_removed AFTER DELETE ON entries
                    BEGIN DELETE FROM entry_tags WHERE key = OLD.key; END;
                CREATE INDEX IF NOT EXISTS entries_by_access ON entries (accessed_at);
                CREATE INDEX IF NOT EXISTS entries_by_expiry ON entries (expires_at);
                CREATE TABLE IF NOT EXISTS totals (id INTEGER PRIMARY KEY CHECK (id = 0), size INTEGER NOT NULL);
                INSERT OR IGNORE INTO totals (id, size) VALUES (0, 0);
                CREATE TRIGGER IF NOT EXISTS entries_added AFTER INSERT ON entries
                    BEGIN UPDATE totals SET size = size + NEW.size WHERE id = 0; END;
                CREATE TRIGGER IF NOT EXISTS entries_removed AFTER DELETE ON entries
                    BEGIN UPDATE totals SET size = size - OLD.size WHERE id = 0; END;
                CREATE TRIGGER IF NOT EXISTS entries_resized AFTER UPDATE OF size ON entries
                    BEGIN UPDATE totals SET size = size - OLD.size + NEW.size WHERE id = 0; END;
                PRAGMA user_version = \(version);
                """)
        }
    }
}
