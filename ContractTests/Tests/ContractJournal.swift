import CourierMockServer
import Foundation
import Testing

/// One exchange of one test, as the server journaled it, with the test's
/// prefix and stub-ID tag taken off so assertions read like the contract.
struct Exchange: Sendable {
    var method: String
    /// The path after the test's prefix, with the query.
    var target: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// The contract's stub ID, without the test's tag; `nil` when unmatched.
    var stubID: String?
    var connectionIndex: Int
    var exchangeIndex: Int
    var status: Int?
    var unmatched: Bool
    /// The connection closed while this was its latest exchange.
    var connectionClosed: Bool
    /// It came over TLS, and in which HTTP version (`HTTP/1.1`).
    var tls = false
    var version = ""

    /// The value of the first field with this name (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    init?(_ entry: JournalEntry, prefix: String, tag: String) {
        guard entry.request.uri.hasPrefix(prefix + "/") || entry.request.uri == prefix else { return nil }
        self.method = entry.request.method
        self.target = String(entry.request.uri.dropFirst(prefix.count))
        self.headers = entry.request.headers.map { ($0.name, $0.value) }
        self.body = entry.request.body
        self.stubID = entry.stubID.map { Self.untagged($0, tag: tag) }
        self.connectionIndex = entry.connectionIndex
        self.exchangeIndex = entry.exchangeIndex
        self.status = entry.status
        self.unmatched = entry.unmatched
        self.connectionClosed = entry.timestamps.connectionClosed != nil
        self.tls = entry.tls
        self.version = entry.request.version
    }

    /// From the admin API's JSON (`GET /__admin/requests`).
    init?(_ entry: [String: Any], prefix: String, tag: String) {
        guard let uri = entry["uri"] as? String, uri.hasPrefix(prefix + "/") || uri == prefix else {
            return nil
        }
        self.method = entry["method"] as? String ?? ""
        self.tls = entry["tls"] as? Bool ?? false
        self.version = entry["version"] as? String ?? ""
        self.target = String(uri.dropFirst(prefix.count))
        self.headers = (entry["headers"] as? [[String: Any]] ?? []).map {
            ($0["name"] as? String ?? "", $0["value"] as? String ?? "")
        }
        if let text = entry["body"] as? String {
            self.body = Array(text.utf8)
        } else {
            self.body =
                (entry["bodyBase64"] as? String).flatMap { Data(base64Encoded: $0) }.map(Array.init) ?? []
        }
        self.stubID = (entry["stubID"] as? String).map { Self.untagged($0, tag: tag) }
        self.connectionIndex = entry["connectionIndex"] as? Int ?? 0
        self.exchangeIndex = entry["exchangeIndex"] as? Int ?? 0
        self.status = entry["status"] as? Int
        self.unmatched = entry["unmatched"] as? Bool ?? false
        self.connectionClosed = (entry["timestamps"] as? [String: Any])?["connectionClosed"] != nil
    }

    private static func untagged(_ id: String, tag: String) -> String {
        id.hasSuffix("@" + tag) ? String(id.dropLast(tag.count + 1)) : id
    }
}

/// How many: `exactly`, `atLeast` or `atMost`.
enum Count: Sendable, CustomStringConvertible {
    case exactly(Int)
    case atLeast(Int)
    case atMost(Int)

    func admits(_ value: Int) -> Bool {
        switch self {
        case .exactly(let expected): value == expected
        case .atLeast(let bound): value >= bound
        case .atMost(let bound): value <= bound
        }
    }

    var description: String {
        switch self {
        case .exactly(let expected): "exactly \(expected)"
        case .atLeast(let bound): "at least \(bound)"
        case .atMost(let bound): "at most \(bound)"
        }
    }
}

/// What a header does across a stub's attempts.
enum HeaderExpectation: Sendable {
    /// On every attempt.
    case present
    /// On no attempt.
    case absent
    /// On every attempt, with this value.
    case equals(String)
    /// On every attempt, with one value throughout (an idempotency key).
    case sameAcrossAttempts
    /// On every attempt, never twice the same (a signature with a timestamp).
    case differentAcrossAttempts
}

/// One test's exchanges and the assertions the contracts make on them. Each
/// assertion records an issue at the caller's line and returns whether it held.
struct ContractJournal: Sendable {
    let all: [Exchange]

    init(_ all: [Exchange]) { self.all = all }

    /// The exchanges answered by this stub, in order.
    func attempts(_ stub: String) -> [Exchange] { all.filter { $0.stubID == stub } }

    @discardableResult
    func expectCount(
        _ stub: String, _ count: Count, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let actual = attempts(stub).count
        guard count.admits(actual) else {
            check(
                false, "\(stub): expected \(count) exchanges, saw \(actual)", sourceLocation: sourceLocation)
            return false
        }
        return true
    }

    /// The total number of this test's exchanges.
    @discardableResult
    func expectTotal(_ count: Count, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard count.admits(all.count) else {
            check(
                false, "expected \(count) exchanges in all, saw \(all.count)", sourceLocation: sourceLocation)
            return false
        }
        return true
    }

    /// The stubs answered in this order (other exchanges in between are allowed).
    @discardableResult
    func expectOrder(_ stubs: [String], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        var remaining = stubs[...]
        for exchange in all where exchange.stubID == remaining.first { remaining = remaining.dropFirst() }
        guard remaining.isEmpty else {
            check(
                false,
                "expected the order \(stubs), saw \(all.map { $0.stubID ?? "unmatched" })",
                sourceLocation: sourceLocation)
            return false
        }
        return true
    }

    @discardableResult
    func expectHeader(
        _ name: String, _ expectation: HeaderExpectation, on stub: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let values = attempts(stub).map { $0.header(name) }
        let present = values.compactMap { $0 }
        let held: Bool =
            switch expectation {
            case .present: !values.isEmpty && present.count == values.count
            case .absent: present.isEmpty
            case .equals(let value): !values.isEmpty && values.allSatisfy { $0 == value }
            case .sameAcrossAttempts: present.count == values.count && Set(present).count == 1
            case .differentAcrossAttempts:
                present.count == values.count && values.count > 1 && Set(present).count == present.count
            }
        if !held {
            check(
                false, "\(name) on \(stub): expected \(expectation), saw \(values)",
                sourceLocation: sourceLocation)
        }
        return held
    }

    /// Each listed pair of attempts (0-based) of `stub` came on a new connection.
    @discardableResult
    func expectNewConnection(
        _ stub: String, forAttempt index: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let attempts = attempts(stub)
        guard index > 0, index < attempts.count,
            attempts[index].connectionIndex != attempts[index - 1].connectionIndex
        else {
            check(
                false,
                "\(stub): attempt \(index + 1) did not come on a new connection "
                    + "(connections \(attempts.map(\.connectionIndex)))", sourceLocation: sourceLocation)
            return false
        }
        return true
    }

    /// No request of this test went unmatched.
    @discardableResult
    func expectNoUnmatched(sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let unmatched = all.filter { $0.stubID == nil }
        guard unmatched.isEmpty else {
            check(
                false,
                "unmatched requests: \(unmatched.map { "\($0.method) \($0.target)" })",
                sourceLocation: sourceLocation)
            return false
        }
        return true
    }

    /// Every stub in `stubs` answered at least once.
    @discardableResult
    func expectAllHit(_ stubs: [String], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let missing = stubs.filter { attempts($0).isEmpty }
        guard missing.isEmpty else {
            check(false, "required stubs never hit: \(missing)", sourceLocation: sourceLocation)
            return false
        }
        return true
    }
}
