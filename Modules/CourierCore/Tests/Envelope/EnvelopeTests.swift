import CourierCodable
@_spi(Decoding) import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

struct EnvelopeTests {
    func send<R>(_ body: String, _ endpoint: Endpoint<R>, status: Int = 200) async throws(CourierError) -> R {
        try await makeClient(StubTransport.immediate(.json(body, status: status))).send(endpoint)
    }

    @Test func successDecodesThePayload() async throws {
        let user = try await send(
            #"{"code":0,"msg":"ok","data":{"id":7,"name":"Ada"}}"#, Endpoint<User>(.get("u"), on: .enveloped))
        #expect(user == User(id: 7, name: "Ada"))
    }

    @Test func businessFailureCarriesCodeAndMessage() async throws {
        do {
            _ = try await send(
                #"{"code":1001,"msg":"captcha required","data":null}"#,
                Endpoint<User>(.get("u"), on: .enveloped))
            Issue.record("a business failure decoded")
        } catch {
            #expect(error.code == .envelope)
            #expect(error.stage == .envelope)
            #expect(error.businessFailure == .init(code: 1001, message: "captcha required"))
            #expect(error.response?.statusCode == 200)
            #expect(error.description.contains("business code: 1001 \"captcha required\""))
        }
    }

    @Test(arguments: [#"{"code":0,"msg":"","data":null}"#, #"{"code":0,"msg":""}"#])
    func nullOrMissingDataIsExplicit(body: String) async throws {
        let optional = try await send(body, Endpoint<User?>(.get("u"), on: .enveloped))
        #expect(optional == nil)
        _ = try await send(body, Endpoint<EmptyResponse>(.get("u"), on: .enveloped))
        do {
            _ = try await send(body, Endpoint<User>(.get("u"), on: .enveloped))
            Issue.record("null data decoded into a non-optional model")
        } catch {
            #expect(error.code == .envelope)
            #expect(error.message.contains("not optional"))
        }
    }

    @Test func failPolicyRejectsNullDataEvenForOptionals() async throws {
        var endpoint = Endpoint<User?>(.get("u"), on: .api)
        endpoint.envelope = .format(EnvelopeFormat(missingData: .fail))
        await #expect(throws: CourierError.self) { try await send(#"{"code":0,"data":null}"#, endpoint) }
    }

    @Test func wrongPayloadTypeIsADecodingErrorNamingThePath() async throws {
        do {
            _ = try await send(
                #"{"code":0,"data":{"id":"seven","name":"Ada"}}"#, Endpoint<User>(.get("u"), on: .enveloped))
            Issue.record("a string id decoded")
        } catch {
            #expect(error.code == .decoding)
            #expect(error.stage == .decoding)
            #expect(error.message.hasPrefix("data.id: expected Int"))
            #expect(error.response != nil)
        }
    }

    @Test(arguments: [
        (#"{"code":"0","data":{}}"#, "strict"),
        (#"{"msg":"x","data":{}}"#, "missingCode"),
        (#"{"code":true,"data":{}}"#, "invalidCode"),
        (#"{"code":1.5,"data":{}}"#, "invalidCode"),
        (#"[1,2]"#, "notObject"),
        (#"{"code":0,"data":{"id":1,"na"#, "notJSON"),
        ("<html><body>502 Bad Gateway</body></html>", "notJSON"),
        ("", "notJSON"),
    ])
    func malformedEnvelopesAreTypedErrors(body: String, reason: String) async throws {
        do {
            _ = try await send(body, Endpoint<User?>(.get("u"), on: .enveloped))
            Issue.record("\(body) passed")
        } catch {
            #expect(error.code == .envelope)
            if reason == "strict" {
                #expect(error.businessFailure?.code == "0")
            } else {
                #expect((error.underlying as? EnvelopeReadError)?.reason.rawValue == reason)
            }
        }
    }

    @Test func lenientMatchingAcceptsStringCodes() async throws {
        var endpoint = Endpoint<User>(.get("u"), on: .api)
        endpoint.envelope = .format(EnvelopeFormat(successCodes: [200], codeMatching: .lenient))
        let user = try await send(#"{"code":"200","data":{"id":1,"name":"A"}}"#, endpoint)
        #expect(user.id == 1)
    }

    @Test func customAndNestedKeys() async throws {
        let format = EnvelopeFormat(
            code: "status.code", message: ["status.desc"], data: "result.payload", successCodes: ["OK"])
        var endpoint = Endpoint<User>(.get("u"), on: .api)
        endpoint.envelope = .format(format)
        let body = #"{"status":{"code":"OK","desc":"fine"},"result":{"payload":{"id":3,"name":"C"}}}"#
        #expect(try await send(body, endpoint) == User(id: 3, name: "C"))

        let failure = #"{"status":{"code":"E42","desc":"quota"},"result":{}}"#
        do {
            _ = try await send(failure, endpoint)
            Issue.record("E42 decoded")
        } catch {
            #expect(error.businessFailure == .init(code: "E42", message: "quota"))
        }
    }

    @Test func messageKeysAreTriedInOrder() async throws {
        do {
            _ = try await send(#"{"code":9,"desc":"from desc"}"#, Endpoint<User>(.get("u"), on: .enveloped))
        } catch {
            #expect(error.businessFailure?.message == "from desc")
        }
    }

    @Test func byteOrderMarkIsIgnored() async throws {
        let body: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"{"code":0,"data":{"id":1,"name":"B"}}"#.utf8)
        let client = makeClient(StubTransport.immediate(.response(status: 200, body: body)))
        #expect(try await client.send(Endpoint<User>(.get("u"), on: .enveloped)).name == "B")
    }

    @Test func endpointCanOptOutOfTheNodesEnvelope() async throws {
        var endpoint = Endpoint<User>(.get("u"), on: .enveloped)
        endpoint.envelope = .none
        #expect(try await send(#"{"id":4,"name":"D"}"#, endpoint).id == 4)
    }

    @Test func transformerUnwrapsDataBeforeDecoding() async throws {
        var endpoint = Endpoint<[Int]>(.get("u"), on: .enveloped)
        endpoint.transformer = EnvelopeUnwrapper()
        #expect(try await send(#"{"code":0,"data":[1,2,3]}"#, endpoint) == [1, 2, 3])
    }

    @Test func rawEndpointsSkipDecodingButNotTheEnvelope() async throws {
        let raw = try await send(#"{"code":0,"data":1}"#, Endpoint<RawResponse>(.get("u"), on: .enveloped))
        #expect(raw.statusCode == 200)
        await #expect(throws: CourierError.self) {
            try await send(#"{"code":3}"#, Endpoint<RawResponse>(.get("u"), on: .enveloped))
        }
    }

    @Test func missingDecoderIsAClearError() async throws {
        let client = APIClient(transport: StubTransport.immediate(.json(#"{"id":1,"name":"x"}"#)))
        let error = await expectFailure(client, Endpoint<User>(.get("u"), on: .api))
        #expect(error?.code == .noDecoder)
    }

    @Test func theEnvelopeIsReadOnceForValidationAndDecoding() async throws {
        let reads = Counter()
        struct CountingDecoder: ResponseDecoder {
            let reads: Counter
            func decode<T: Decodable>(_ type: T.Type, from body: [UInt8], at path: [String]) throws -> T {
                try CodableDecoder().decode(type, from: body, at: path)
            }
            func readEnvelope(_ body: [UInt8], format: EnvelopeFormat) throws -> EnvelopeHead {
                reads.increment()
                return try CodableDecoder().readEnvelope(body, format: format)
            }
        }
        var endpoint = Endpoint<User?>(.get("u"), on: .enveloped)
        endpoint.decoder = CountingDecoder(reads: reads)
        _ = try await send(#"{"code":0,"data":null}"#, endpoint)
        #expect(reads.value == 1)
    }
}
