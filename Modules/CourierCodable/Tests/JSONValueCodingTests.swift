import CourierCodable
import Foundation
import Testing

/// `JSONValue` through Foundation's coders: what a model holding one relies on.
struct JSONValueCodingTests {
    struct Event: Codable, Equatable {
        let name: String
        let extra: JSONValue
    }

    @Test func aModelHoldingAnyJSONRoundTripsExactly() throws {
        let text =
            #"{"name":"signup","extra":{"id":9007199254740993,"ratio":0.5,"tags":["a",null,true],"z":{},"a":[]}}"#
        let event = try JSONDecoder().decode(Event.self, from: Data(text.utf8))
        #expect(event.extra["id"]?.intValue == 9_007_199_254_740_993)  // not squeezed through Double
        let again = try JSONDecoder().decode(Event.self, from: JSONEncoder().encode(event))
        #expect(again == event)
        #expect(again.extra["tags"] == .array([.string("a"), .null, .bool(true)]))
        #expect(again.extra["ratio"] == .double(0.5))
    }

    @Test func jsonEncoderKeepsTheMembersAndSerializedKeepsTheirOrder() throws {
        let object: JSONValue = .object(["zeta": .int(1), "alpha": .int(2), "mid": .null])
        let viaEncoder = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(object))
        #expect(viaEncoder == object)  // objects compare by members, in any order
        #expect(String(decoding: object.serialized(), as: UTF8.self) == #"{"zeta":1,"alpha":2,"mid":null}"#)
    }
}
