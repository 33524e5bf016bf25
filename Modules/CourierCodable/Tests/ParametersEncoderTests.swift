import CourierCodable
@_spi(Locking) import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// `ParametersEncoder`: an `Encodable` straight into parameters, the strategies
/// it owns (keys, dates, data, explicit nulls), and the endpoint's
/// `ParameterEncoding` writing the rest — checked as the text that goes on
/// the wire.
struct ParametersEncoderTests {
    struct Filter: Encodable, Sendable {
        struct Range: Encodable, Sendable {
            let from: Int
            let to: Int
        }

        let pageSize: Int
        let tags: [String]
        let since: Date
        let note: String?
        let exact: Bool
        let range: Range
    }

    static let since = Date(timeIntervalSince1970: 1_700_000_000)
    static let filter = Filter(
        pageSize: 20, tags: ["a", "b c"], since: since, note: nil, exact: true, range: .init(from: 1, to: 9))

    /// The query text `value` becomes under `encoder` and `encoding`.
    static func text(
        _ value: some Encodable, _ encoder: ParametersEncoder = ParametersEncoder(),
        _ encoding: ParameterEncoding = .default
    ) throws -> String {
        try encoding.encode(encoder.encode(value))
    }

    @Test func fieldsKeepTheirOrderAndNestingAndANilOptionalIsLeftOut() throws {
        #expect(
            try Self.text(Self.filter)
                == "pageSize=20&tags%5B%5D=a&tags%5B%5D=b%20c&since=2023-11-14T22%3A13%3A20Z&exact=true"
                + "&range%5Bfrom%5D=1&range%5Bto%5D=9")
    }

    @Test func arraysBooleansAndNullsAreTheEndpointEncodingsToWrite() throws {
        struct Flags: Encodable, Sendable {
            let ids: [Int]
            let on: Bool
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(ids, forKey: .ids)
                try container.encode(on, forKey: .on)
                try container.encodeNil(forKey: .gone)
            }
            enum CodingKeys: String, CodingKey { case ids, on, gone }
        }
        let flags = Flags(ids: [1, 2], on: false)
        let numeric = ParameterEncoding(arrayStyle: .repeatKey, boolStyle: .numeric, nullStyle: .emptyValue)
        #expect(try Self.text(flags) == "ids%5B%5D=1&ids%5B%5D=2&on=false")
        #expect(try Self.text(flags, ParametersEncoder(), numeric) == "ids=1&ids=2&on=0&gone=")
        #expect(
            try Self.text(flags, ParametersEncoder(nils: .text("null")))
                == "ids%5B%5D=1&ids%5B%5D=2&on=false&gone=null")
    }

    @Test func keysAreSpelledByTheKeyStrategy() throws {
        struct Names: Encodable, Sendable {
            let pageSizeURL = 1
            let userID = 2
            let v2Name = 3
        }
        #expect(
            try Self.text(Names(), ParametersEncoder(keys: .convertToSnakeCase))
                == "page_size_url=1&user_id=2&v2_name=3")
        #expect(
            try Self.text(Names(), ParametersEncoder(keys: .convertToKebabCase))
                == "page-size-url=1&user-id=2&v2-name=3")
        #expect(
            try Self.text(Names(), ParametersEncoder(keys: .capitalized)) == "PageSizeURL=1&UserID=2&V2Name=3"
        )
        #expect(
            try Self.text(Names(), ParametersEncoder(keys: .custom { "x." + $0 }))
                == "x.pageSizeURL=1&x.userID=2&x.v2Name=3")
    }

    @Test func datesAndDataAreWrittenByTheirStrategies() throws {
        struct Stamp: Encodable, Sendable {
            let at: Date
            let blob: Data
        }
        let stamp = Stamp(at: Date(timeIntervalSince1970: 1.5), blob: Data([0xFF, 0x00, 0x41]))
        #expect(try Self.text(stamp) == "at=1970-01-01T00%3A00%3A01Z&blob=%2FwBB")
        #expect(
            try Self.text(stamp, ParametersEncoder(dates: .secondsSince1970, data: .deferredToData))
                == "at=1.5&blob%5B%5D=255&blob%5B%5D=0&blob%5B%5D=65")
        #expect(try Self.text(stamp, ParametersEncoder(dates: .millisecondsSince1970)).hasPrefix("at=1500&"))
        #expect(
            try Self.text(stamp, ParametersEncoder(dates: .deferredToDate)).hasPrefix(
                "at=-978307198.5&"))
        #expect(
            try Self.text(
                stamp, ParametersEncoder(dates: .custom { _ in "today" }, data: .custom { "\($0.count)" }))
                == "at=today&blob=3")
    }

    @Test func whatCannotBeParametersIsATypedBuildError() {
        #expect(throws: CourierError.self) { try ParametersEncoder().encode([1, 2, 3]) }
        do {
            _ = try ParametersEncoder().encode(["x": Double.nan])
            Issue.record("NaN encoded")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.stage == .build)
            #expect(error.underlying is EncodingError)
        }
        do {
            _ = try ParametersEncoder().encode([1])
            Issue.record("an array encoded as parameters")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.message.contains("object"))
        }
    }

    @Test func aFormBodyAndAQueryReachTheRequestThroughTheParameterInterceptors() async throws {
        let seen = Locked<[HTTPRequest]>([])
        let bodies = Locked<[String]>([])
        let transport = StubTransport { request in
            seen.withLock { $0.append(request.head) }
            bodies.withLock { $0.append(String(decoding: request.body ?? [], as: UTF8.self)) }
            return .json("{}")
        }
        let stamp = ParameterInterceptor { parameters, _, _ in
            var parameters = parameters
            parameters["signed"] = "yes"
            return parameters
        }
        let client = APIClient(
            configuration: .init(transport: transport, parameterInterceptors: [stamp], clock: TestClock()))
        let node = Node("api", baseURL: "https://api.example.com")
        let encoder = ParametersEncoder(keys: .convertToSnakeCase)
        let endpoint = try Endpoint<RawResponse>(
            .post("search"), on: node, content: .form(from: Self.filter, encoder: encoder)
        )
        .adding(queryFrom: ["page": 2] as [String: Int], encoder: encoder)
        _ = try await client.send(endpoint)
        #expect(seen.withLock { $0.first?.path } == "/search?page=2&signed=yes")
        #expect(
            bodies.withLock { $0.first }
                == "page_size=20&tags%5B%5D=a&tags%5B%5D=b%20c&since=2023-11-14T22%3A13%3A20Z&exact=true"
                + "&range%5Bfrom%5D=1&range%5Bto%5D=9&signed=yes")
        #expect(seen.withLock { $0.first?.headerFields[.contentType] } == "application/x-www-form-urlencoded")
    }
}
