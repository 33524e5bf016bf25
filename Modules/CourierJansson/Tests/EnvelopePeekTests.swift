import CourierCodable
@_spi(Locking) @_spi(Decoding) import CourierCore
import CourierJansson
import CourierTesting
import Synchronization
import Testing

/// The envelope stage with jansson: one parse, `code` and `msg` read from the
/// tree, `data` decoded from the same tree, and never on a business error.
struct EnvelopePeekTests {
    /// A small model.
    struct Counted: Decodable, Sendable, Equatable {
        let id: Int
        init(from decoder: any Decoder) throws {
            id = try decoder.container(keyedBy: Keys.self).decode(Int.self, forKey: .id)
        }
        init(id: Int) { self.id = id }
        enum Keys: CodingKey { case id }
    }

    @Test(
        arguments: [
            (
                #"{"code": 0, "msg": "ok", "data": {"id": 1}}"#, EnvelopeCode.int(0), "ok",
                EnvelopeHead.DataPresence.present
            ),
            (#"{"code": "E1", "message": "bad", "data": null}"#, .string("E1"), "bad", .null),
            (#"{"code": 3, "desc": "d"}"#, .int(3), "d", .missing),
            (#"{"code": 4.0, "msg": 5}"#, .int(4), nil, .missing),
        ] as [(String, EnvelopeCode, String?, EnvelopeHead.DataPresence)])
    func readsTheSameHeadAsCodable(
        body: String, code: EnvelopeCode, message: String?, data: EnvelopeHead.DataPresence
    )
        throws
    {
        let head = try JanssonDecoder().readEnvelope(Array(body.utf8), format: .standard)
        #expect(head == EnvelopeHead(code: code, message: message, data: data))
        #expect(try CodableDecoder().readEnvelope(Array(body.utf8), format: .standard) == head)
    }

    @Test(arguments: [
        ("", EnvelopeReadError.Reason.notJSON), ("<html>", .notJSON), ("[1]", .notObject),
        (#"{"msg": "x"}"#, .missingCode),
        (#"{"code": null}"#, .invalidCode), (#"{"code": 1.5}"#, .invalidCode),
        (#"{"code": {}}"#, .invalidCode),
        (#"{"code": 0"#, .notJSON),
    ])
    func malformedEnvelopesAreRefusedAlike(body: String, reason: EnvelopeReadError.Reason) {
        for decoder in [JanssonDecoder() as any ResponseDecoder, CodableDecoder()] {
            do {
                _ = try decoder.readEnvelope(Array(body.utf8), format: .standard)
                Issue.record("\(type(of: decoder)) read \(body)")
            } catch let error as EnvelopeReadError {
                #expect(error.reason == reason, "\(type(of: decoder)): \(error)")
            } catch {
                Issue.record("\(type(of: decoder)): \(error)")
            }
        }
    }

    @Test func keyPathsAndCustomNames() throws {
        let format = EnvelopeFormat(
            code: "meta.status", message: ["meta.text"], data: "payload.item", successCodes: [200])
        let body = Array(#"{"meta": {"status": 200, "text": "fine"}, "payload": {"item": {"id": 9}}}"#.utf8)
        let head = try JanssonDecoder().readEnvelope(body, format: format)
        #expect(head == EnvelopeHead(code: 200, message: "fine", data: .present))
        let model = try JanssonDecoder().decode(Counted.self, from: body, at: format.dataPath, envelope: head)
        #expect(model.id == 9)
    }

    /// The payload is decoded from the tree the head kept: the body is not
    /// even looked at again.
    @Test func thePayloadComesFromTheSameParse() throws {
        let body = Array(#"{"code": 0, "data": {"id": 5}}"#.utf8)
        let head = try JanssonDecoder().readEnvelope(body, format: .standard)
        #expect(head.parsedBody != nil)
        let model = try JanssonDecoder().decode(Counted.self, from: [], at: ["data"], envelope: head)
        #expect(model.id == 5)
    }

    /// A model that must never be decoded.
    struct Untouchable: Decodable, Sendable {
        static let decodings = Locked(0)
        init(from decoder: any Decoder) throws {
            Self.decodings.withLock { $0 += 1 }
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "decoded"))
        }
    }

    @Test func aBusinessErrorNeverDecodesData() async throws {
        let transport = StubTransport.sequence([
            .envelope(code: 4003, msg: "not yours", data: #"{"id": "not even an int"}"#),
            .envelope(code: 0, data: #"{"id": 8}"#),
        ])
        let client = APIClient(transport: transport, decoder: .jansson)
        let node = Node("peek", baseURL: "https://example.com", envelope: .standard)
        do {
            _ = try await client.send(Endpoint<Untouchable>(.get("orders"), on: node))
            Issue.record("a business error decoded")
        } catch {
            #expect(error.businessFailure == .init(code: 4003, message: "not yours"))
        }
        #expect(Untouchable.decodings.withLock { $0 } == 0)
        let model = try await client.send(Endpoint<Counted>(.get("orders"), on: node))
        #expect(model.id == 8)
    }

    @Test func aBodyWithAHugeIntegerFallsBackToJSONDecoder() throws {
        let body = Array(#"{"code": 0, "data": {"id": 1, "big": 18446744073709551615}}"#.utf8)
        let head = try JanssonDecoder().readEnvelope(body, format: .standard)
        #expect(head.code == 0 && head.data == .present)
        struct Big: Decodable, Equatable {
            let id: Int
            let big: UInt64
        }
        #expect(
            try JanssonDecoder().decode(Big.self, from: body, at: ["data"], envelope: head)
                == Big(id: 1, big: .max))
    }
}
