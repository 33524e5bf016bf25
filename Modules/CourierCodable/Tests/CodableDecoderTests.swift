import CourierCodable
@_spi(Decoding) import CourierCore
import Foundation
import Testing

struct CodableDecoderTests {
    struct Event: Decodable, Equatable {
        let eventName: String
        let at: Date
    }

    struct Item: Decodable {
        let id: Int
    }

    let decoder = CodableDecoder()

    @Test func strategiesAreConfigurable() throws {
        let configured = CodableDecoder { json in
            json.keyDecodingStrategy = .convertFromSnakeCase
            json.dateDecodingStrategy = .secondsSince1970
        }
        let body = Array(#"{"data":{"event_name":"launch","at":86400}}"#.utf8)
        let event = try configured.decode(Event.self, from: body, at: ["data"])
        #expect(event == Event(eventName: "launch", at: Date(timeIntervalSince1970: 86_400)))
    }

    @Test func errorsNameTheFullCodingPath() throws {
        let body = Array(#"{"data":{"items":[{"id":1},{"id":2},{"id":"3"}]}}"#.utf8)
        struct Page: Decodable { let items: [Item] }
        do {
            _ = try decoder.decode(Page.self, from: body, at: ["data"])
            Issue.record("decoded a string id")
        } catch let error as DecodingError {
            guard case .typeMismatch(_, let context) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(context.codingPath.map(\.stringValue) == ["data", "items", "Index 2", "id"])
        }
    }

    @Test func nestedKeyPathsAreFollowed() throws {
        let body = Array(#"{"a":{"b":{"c":[1,2]}}}"#.utf8)
        #expect(try decoder.decode([Int].self, from: body, at: ["a", "b", "c"]) == [1, 2])
        #expect(throws: DecodingError.self) { try decoder.decode([Int].self, from: body, at: ["a", "x"]) }
    }

    @Test func largeIntegersKeepTheirPrecision() throws {
        let body = Array(#"{"v":9007199254740993}"#.utf8)
        #expect(try decoder.decode([String: Int64].self, from: body, at: [])["v"] == 9_007_199_254_740_993)
    }

    @Test func readsEnvelopeHeads() throws {
        let format = EnvelopeFormat.standard
        #expect(
            try decoder.readEnvelope(Array(#"{"code":0,"msg":"ok","data":[1]}"#.utf8), format: format)
                == EnvelopeHead(code: 0, message: "ok", data: .present))
        #expect(
            try decoder.readEnvelope(Array(#"{"code":"E","message":"m","data":null}"#.utf8), format: format)
                == EnvelopeHead(code: "E", message: "m", data: .null))
        #expect(
            try decoder.readEnvelope(Array(#"{"code":3,"msg":5}"#.utf8), format: format)
                == EnvelopeHead(code: 3, message: nil, data: .missing))
    }

    @Test func envelopeErrorsExplainThemselves() {
        do {
            _ = try decoder.readEnvelope(Array("<html>502</html>".utf8), format: .standard)
            Issue.record("HTML read as an envelope")
        } catch let error as EnvelopeReadError {
            #expect(error.reason == .notJSON)
            #expect(error.detail.contains("starting \"<html>502</html>\""))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func unwrapperExtractsThePayloadKeepingIntegers() throws {
        let unwrapper = EnvelopeUnwrapper(format: EnvelopeFormat(data: "result.items"))
        let out = try unwrapper.transform(
            Array(#"{"code":0,"result":{"items":[9007199254740993,"x",null]}}"#.utf8))
        #expect(String(decoding: out, as: UTF8.self) == #"[9007199254740993,"x",null]"#)
        #expect(try unwrapper.transform(Array(#"{"code":0}"#.utf8)) == Array("null".utf8))
    }
}
