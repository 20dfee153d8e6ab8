import Contracts
import Foundation
import ParseWire
import Testing

/// The hand-built JSON of the envelope and REST payloads is the synthesized `Codable` form: each side may use
/// either coder.
@Suite struct JSONValueRepresentableTests {
    static let identities = [
        Identity.anonymous, .master, Identity(isReadOnlyMaster: true),
        Identity(userId: "u1", roles: ["role:admins", "role:a \"quoted\" name"], sessionToken: "r:abc"),
    ]
    static let requests = [
        RESTRequest(method: "GET", path: "classes/Cat/xyz", query: [:], body: nil, serverURL: "http://127.0.0.1:1337/parse"),
        RESTRequest(method: "PUT", path: "classes/Cat", query: ["where": #"{"name":{"$regex":"^T\\d"}}"#, "limit": "25"],
                    body: "{\"name\":\"Tōm\\n😀\",\"tab\":\"\t\"}", serverURL: "https://example.com/parse"),
    ]
    static let responses = [
        RESTResponse(status: 200, body: "{}"),
        RESTResponse(status: 201, headers: ["Location": "http://h/parse/classes/Cat/a1"], body: #"{"objectId":"a1"}"#),
    ]

    static func foundation<T: Encodable>(_ value: T) throws -> JSONValue {
        try #require(JSONValue.parse(Array(try JSONEncoder().encode(value))))
    }

    static func decoded<T: Decodable>(_ type: T.Type, _ json: JSONValue) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.compactText.utf8))
    }

    @Test(arguments: identities)
    func identitiesMatchTheSynthesizedForm(_ identity: Identity) throws {
        #expect(identity.jsonValue == (try Self.foundation(identity)))
        #expect(try Self.decoded(Identity.self, identity.jsonValue) == identity)
        #expect(Identity(jsonValue: try Self.foundation(identity)) == identity)
    }

    @Test(arguments: requests)
    func commandsWithRESTRequestsMatchTheSynthesizedForm(_ request: RESTRequest) throws {
        let command = Command(type: RESTRequest.type, requestId: "req-1", identity: Self.identities[3], payload: request)
        #expect(command.jsonValue == (try Self.foundation(command)))
        let back = try #require(Command<RESTRequest>(jsonValue: try Self.foundation(command)))
        #expect(back.type == command.type && back.requestId == "req-1" && back.identity == command.identity)
        #expect(back.payload == request)
        #expect(try Self.decoded(Command<RESTRequest>.self, command.jsonValue).payload == request)
    }

    @Test(arguments: responses)
    func repliesWithRESTResponsesMatchTheSynthesizedForm(_ response: RESTResponse) throws {
        let reply = CommandReply<RESTResponse>.success(response)
        #expect(reply.jsonValue == (try Self.foundation(reply)))
        #expect(try CommandReply<RESTResponse>(jsonValue: try Self.foundation(reply))?.get() == response)
    }

    @Test func failuresAndEmptyReplies() throws {
        let failure = CommandReply<RESTResponse>.failure(ParseError(.objectNotFound, "Object not found."))
        #expect(failure.jsonValue == (try Self.foundation(failure)))
        let read = try #require(CommandReply<Empty>(jsonValue: try Self.foundation(failure)))
        #expect(throws: ParseError(.objectNotFound, "Object not found.")) { try read.get() }
        #expect(try CommandReply<Empty>(jsonValue: try Self.foundation(CommandReply.success(Empty())))?.get() == Empty())
    }

    @Test func voteCommandsMatchTheSynthesizedForm() throws {
        let vote = CastVote(className: "Cat", objectId: "a1", field: "votes", kind: .increment, value: -1)
        #expect(vote.jsonValue == (try Self.foundation(vote)))
        #expect(CastVote(jsonValue: try Self.foundation(vote)) == vote)

        let batch = ApplyBallots(groups: [
            CounterBallots(className: "Cat", objectId: "a1", field: "votes", oncePerUser: true, ballots: [
                .init(ballotId: "0193a0c4-1b2c-7d3e-8f40-123456789abc", kind: .increment, value: 1, voter: Self.identities[3]),
                .init(ballotId: "0193a0c4-1b2c-7d3e-8f40-123456789abd", kind: .set, value: 7.5, voter: .anonymous),
            ]),
            CounterBallots(className: "Dog", objectId: "b2", field: "likes", ballots: []),
        ])
        #expect(batch.jsonValue == (try Self.foundation(batch)))
        #expect(ApplyBallots(jsonValue: try Self.foundation(batch)) == batch)
        #expect(try Self.decoded(ApplyBallots.self, batch.jsonValue) == batch)
        let withoutRule = try #require(JSONValue.parse(#"{"className":"Cat","objectId":"a1","field":"votes","ballots":[]}"#))
        #expect(CounterBallots(jsonValue: withoutRule)?.oncePerUser == false)

        let applied = BallotsApplied(outcomes: [
            .init(ballotId: "x1", amount: 1, total: 12, sequence: 12, updatedAt: "2026-11-30T20:00:00.000Z"),
            .init(ballotId: "x2", error: ParseError(.objectNotFound, "Object not found.")),
            .init(ballotId: "x3", total: 12, updatedAt: "2026-11-30T20:00:00.000Z"),
        ])
        #expect(applied.jsonValue == (try Self.foundation(applied)))
        #expect(BallotsApplied(jsonValue: try Self.foundation(applied)) == applied)
        #expect(try Self.decoded(BallotsApplied.self, applied.jsonValue) == applied)
    }

    /// Shapes the synthesized decoder refuses are refused too, so the caller falls back to it for the error.
    @Test(arguments: [
        #"{"isMaster":false,"isReadOnlyMaster":false}"#, #"{"roles":["a",1],"isMaster":false,"isReadOnlyMaster":false}"#,
        #"{"roles":[],"isMaster":"no","isReadOnlyMaster":false}"#, #"{"roles":[],"isMaster":false,"isReadOnlyMaster":false,"userId":7}"#,
    ])
    func malformedIdentities(_ text: String) throws {
        let json = try #require(JSONValue.parse(text))
        #expect(Identity(jsonValue: json) == nil)
        #expect(throws: DecodingError.self) { try Self.decoded(Identity.self, json) }
    }

    @Test func malformedRESTShapes() throws {
        #expect(RESTRequest(jsonValue: try #require(JSONValue.parse(#"{"method":"GET","path":"x","query":{"a":1},"serverURL":"s"}"#))) == nil)
        #expect(RESTResponse(jsonValue: try #require(JSONValue.parse(#"{"status":200.5,"headers":{},"body":""}"#))) == nil)
        #expect(CommandReply<RESTResponse>(jsonValue: try #require(JSONValue.parse(#"{"error":{"code":"x"}}"#))) == nil)
    }
}

/// The Cloud Code messages' hand-built JSON is the synthesized `Codable` form too.
@Suite struct CloudMessageJSONTests {
    static func same<T: Codable & Equatable & JSONValueRepresentable>(_ value: T) throws {
        #expect(value.jsonValue == (try JSONValueRepresentableTests.foundation(value)))
        #expect(try JSONValueRepresentableTests.decoded(T.self, value.jsonValue) == value)
        #expect(T(jsonValue: try JSONValueRepresentableTests.foundation(value)) == value)
    }

    @Test func functionCallsAndResults() throws {
        try Self.same(RunCloudFunction(name: "echo", params: .object(["a": .array([.number(1), .null])]),
                                       headers: ["user-agent": "sdk"], ip: "::1"))
        try Self.same(CloudFunctionResult(result: .string("Foo")))
        try Self.same(CloudFunctionResult(result: .object(["x": .bool(true)])))
    }

    @Test func workerCalls() throws {
        try Self.same(CloudWorkerCall(kind: .function, name: "echo", request: .object(["params": .object([:])])))
        try Self.same(CloudWorkerCall(kind: .trigger, name: "beforeSave", className: "Cat", request: .object([:])))
    }

    @Test func triggerRunsAndResults() throws {
        try Self.same(RunTrigger(key: TriggerKey(className: "Cat", triggerName: .beforeSave)))
        try Self.same(RunTrigger(key: TriggerKey(className: "Cat", triggerName: .afterFind), object: .object(["a": .number(1)]),
                                 original: .object([:]), query: .object(["where": .object([:])]), objects: [.object([:])],
                                 context: .object(["c": .string("d")]), headers: ["h": "v"], ip: "1.2.3.4"))
        try Self.same(TriggerResult())
        try Self.same(TriggerResult(object: .object(["name": .string("Tom")]), query: nil, objects: [.null]))
    }
}
