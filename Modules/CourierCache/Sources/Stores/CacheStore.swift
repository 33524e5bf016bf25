import CourierCore
public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Where a ``ResponseCache`` keeps responses: a tier. ``MemoryStore`` and
/// ``DiskStore`` ship here; a store shared by a fleet of servers (Redis)
/// implements the same protocol.
///
/// A store holds ``CacheEntry`` values under ``CacheKey``s — digests, never
/// the request itself — and owes its callers four things:
/// - an entry whose ``CacheEntry/expiresAt`` has passed is never returned
///   (it may be removed then or later);
/// - an entry it cannot read back whole and intact (a damaged row, a
///   truncated file) is a miss, and is removed, never returned in part;
/// - it never blocks the Swift concurrency pool: blocking I/O runs on a
///   thread of its own;
/// - it is safe to call from any number of tasks at once.
///
/// ### Implement your own
/// Keep the entry's fields as they are (the cache has already left out
/// credentials and `Set-Cookie`), and throw ``CacheStoreError`` for what
/// failed; the cache treats a failed read as a miss and reports it.
public protocol CacheStore: Sendable {
    /// The entry stored under `key`, unless there is none, it expired by
    /// `now`, or it is damaged (then it is removed).
    func entry(for key: CacheKey, now: Date) async throws(CacheStoreError) -> CacheEntry?
    /// Stores `entry` under `key`, replacing what was there; may evict
    /// others to stay within the store's size.
    func store(_ entry: CacheEntry, for key: CacheKey) async throws(CacheStoreError)
    /// Removes the entry under `key`, if any.
    func removeEntry(for key: CacheKey) async throws(CacheStoreError)
    /// Removes every entry.
    func removeAll() async throws(CacheStoreError)
    /// Removes every entry expired by `now`. - Returns: How many.
    @discardableResult
    func removeExpired(now: Date) async throws(CacheStoreError) -> Int
    /// The bytes the entries take (``CacheEntry/size`` summed).
    func totalSize() async throws(CacheStoreError) -> Int
    /// Removes every entry whose ``CacheEntry/tags`` include `tag`.
    /// - Returns: How many.
    @discardableResult
    func removeEntries(tagged tag: CacheTag) async throws(CacheStoreError) -> Int
}

extension CacheStore {
    /// For stores written before tags: they cannot find entries by tag.
    /// - Throws: ``CacheStoreError/Code/unsupported``, always.
    @discardableResult
    public func removeEntries(tagged tag: CacheTag) async throws(CacheStoreError) -> Int {
        throw CacheStoreError(.unsupported, "\(type(of: self)) cannot remove entries by tag")
    }
}

/// A stored response and what the cache needs to know about it.
public struct CacheEntry: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The response's header fields, without credentials or `Set-Cookie`
    /// (the cache's redaction list).
    public var headerFields: HTTPFields
    /// The body.
    public var body: [UInt8]
    /// When the response was received: the start of its age.
    public var storedAt: Date
    /// When it stops being served at all (the endpoint's ``CacheExpiry``);
    /// `nil` for never.
    public var expiresAt: Date?
    /// The request's values of the fields the response's `Vary` names, as
    /// they were when it was stored (credentials as digests): a request with
    /// other values does not get this entry.
    public var variantFields: HTTPFields
    /// What the entry can be removed by (``CacheTag``): its target URI, its
    /// endpoint, its path's prefixes and its policy's tags.
    public var tags: Set<CacheTag>

    /// Creates an entry.
    public init(
        status: Int, headerFields: HTTPFields, body: [UInt8], storedAt: Date, expiresAt: Date?,
        variantFields: HTTPFields = [:], tags: Set<CacheTag> = []
    ) {
        self.tags = tags
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.storedAt = storedAt
        self.expiresAt = expiresAt
        self.variantFields = variantFields
    }

    /// The `ETag` validator, if the response had one.
    public var entityTag: String? { headerFields[.eTag] }
    /// The `Last-Modified` validator, if the response had one.
    public var lastModified: String? { headerFields[.lastModified] }

    /// The bytes the entry counts for in a store's size limit: the body, the
    /// fields, 32 per tag, and a fixed 64 for the rest.
    public var size: Int {
        body.count + Self.size(of: headerFields) + Self.size(of: variantFields) + 32 * tags.count + 64
    }

    /// Whether it expired by `now`.
    public func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }

    private static func size(of fields: HTTPFields) -> Int {
        fields.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
    }
}

/// Why a ``CacheStore`` could not do what it was asked.
public struct CacheStoreError: Error, Sendable, CustomStringConvertible {
    /// What failed: an open set.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A stable identifier.
        public let rawValue: String
        /// Creates a code; use the static members unless you define your own.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// A stable identifier.
        public var description: String { rawValue }

        /// The store's directory or files could not be created, read or written.
        public static let io = Code("io")
        /// The store's database failed (locked for too long, full, damaged).
        public static let database = Code("database")
        /// The store was closed.
        public static let closed = Code("closed")
        /// The store cannot do what was asked (a store of your own without
        /// ``CacheStore/removeEntries(tagged:)``).
        public static let unsupported = Code("unsupported")
    }

    /// What failed.
    public var code: Code
    /// A sentence for people.
    public var message: String
    /// The error that caused it.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// `cache store <code>: <message>`.
    public var description: String { "cache store \(code): \(message)" }
}
