import Contracts
import Foundation
import ParseWire
import Testing

/// The bytes of every message between services, as services of the previous version write and read them and as
/// outbox rows hold them: each fixture is what the hand-written `jsonValue` mirrors these types had produced, so
/// the Codable coder that replaced them must give exactly these bytes (sorted keys, absent optionals left out,
/// whole numbers without a fraction) and read them back to the same value.
@Suite struct WireFormatTests {
    static let voter = Identity(userId: "u1", roles: ["role:admins", "role:a \"quoted\" name"], sessionToken: "r:abc",
                                installationId: "inst-1")
    static let request = RESTRequest(
        method: "PUT", path: "classes/Cat/a1", query: ["where": #"{"name":{"$regex":"^T\\d"}}"#, "limit": "25", "B": "/"],
        body: "{\"name\":\"Tōm\\n😀\",\"tab\":\"\t\",\"ctl\":\"\u{01}\u{7F}\u{2028}\"}", serverURL: "https://example.com/parse",
        headers: ["user-agent": "sdk/1.0", "x-b": "2", "X-a": "1"], ip: "::1",
        context: .object(["z": .number(1), "a": .array([.null, .number(-0.5), .number(1e21), .number(123456789012)])]),
        idempotent: true)
    static let ballots = ApplyBallots(groups: [
        CounterBallots(className: "Cat", objectId: "a1", field: "votes", oncePerUser: true, ballots: [
            .init(ballotId: "0193a0c4-1b2c-7d3e-8f40-123456789abc", kind: .increment, value: 1, voter: voter),
            .init(ballotId: "0193a0c4-1b2c-7d3e-8f40-123456789abd", kind: .set, value: 7.5, voter: .anonymous),
        ]),
        CounterBallots(className: "Dog", objectId: "b2", field: "likes", ballots: []),
    ])
    static let outcomes = BallotsApplied(outcomes: [
        .init(ballotId: "x1", amount: 1, total: 12, sequence: 12, updatedAt: "2026-11-30T20:00:00.000Z"),
        .init(ballotId: "x2", error: ParseError(.objectNotFound, "Object not found.")),
        .init(ballotId: "x3", amount: -0.25, total: 1e-7, updatedAt: "2026-11-30T20:00:00.000Z"),
    ])
    static let trigger = RunTrigger(
        key: TriggerKey(className: "Cat", triggerName: .afterFind), object: .object(["a": .number(1), "B": .bool(false)]),
        original: .null, query: .object(["where": .object([:])]), objects: [.object([:]), .null], context: .string("c"),
        headers: ["h": "v"], ip: "1.2.3.4", eventId: "e-1")

    static let samples: [(name: String, value: any Codable & Sendable)] = [
        ("identity anonymous", Identity.anonymous),
        ("identity master", Identity.master),
        ("identity read-only master", Identity(isReadOnlyMaster: true)),
        ("identity full", voter),
        ("request minimal", RESTRequest(method: "GET", path: "classes/Cat/xyz", query: [:], body: nil,
                                        serverURL: "http://127.0.0.1:1337/parse")),
        ("request full", request),
        ("request not idempotent, null context", RESTRequest(method: "POST", path: "batch", query: [:], body: "{}",
                                                              serverURL: "s", context: .null, idempotent: false)),
        ("response", RESTResponse(status: 201, headers: ["Location": "http://h/parse/classes/Cat/a1", "A": "b"],
                                  body: #"{"objectId":"a1","n":1.5}"#)),
        ("command get", Command(type: RESTRequest.type, requestId: "req-1", identity: .anonymous,
                                payload: RESTRequest(method: "GET", path: "classes/Cat/xyz", query: [:], body: nil,
                                                     serverURL: "http://127.0.0.1:1337/parse"))),
        ("command full", Command(type: RESTRequest.type, requestId: "req-2", identity: voter, payload: request)),
        ("reply success", CommandReply<RESTResponse>.success(RESTResponse(status: 200, body: "{}"))),
        ("reply failure", CommandReply<RESTResponse>.failure(ParseError(.objectNotFound, "Object \"x\" not found."))),
        ("reply empty", CommandReply<Empty>.success(Empty())),
        ("reply empty failure", CommandReply<Empty>.failure(ParseError(.otherCause, "odd"))),
        ("parse error", ParseError(.internalServerError, "Internal server error.")),
        ("cast vote", CastVote(className: "Cat", objectId: "a1", field: "votes", kind: .increment, value: -1)),
        ("cast vote set", CastVote(className: "Cat", objectId: "a1", field: "votes", kind: .set, value: 2.5)),
        ("vote command", Command(type: CastVote.type, requestId: "r", identity: voter,
                                 payload: CastVote(className: "Cat", objectId: "a1", field: "votes", kind: .increment, value: 1))),
        ("apply ballots", ballots),
        ("apply ballots command", Command(type: ApplyBallots.type, requestId: "r", identity: .master, payload: ballots)),
        ("ballots applied", outcomes),
        ("ballots applied reply", CommandReply<BallotsApplied>.success(outcomes)),
        ("cloud function", RunCloudFunction(name: "echo", params: .object(["a": .array([.number(1), .null, .string("é")])]),
                                            headers: ["user-agent": "sdk"], ip: "::1")),
        ("cloud function command", Command(type: RunCloudFunction.type, requestId: "r", identity: voter,
                                           payload: RunCloudFunction(name: "f", params: .object([:]), headers: [:], ip: ""))),
        ("cloud function result", CloudFunctionResult(result: .string("Foo"))),
        ("cloud function null result", CommandReply<CloudFunctionResult>.success(CloudFunctionResult(result: .null))),
        ("worker call", CloudWorkerCall(kind: .function, name: "echo", request: .object(["params": .object([:])]))),
        ("worker trigger call", CloudWorkerCall(kind: .trigger, name: "beforeSave", className: "Cat", request: .object([:]))),
        ("trigger key", TriggerKey(className: "@File", triggerName: .beforeSaveFile)),
        ("trigger minimal", RunTrigger(key: TriggerKey(className: "Cat", triggerName: .beforeSave))),
        ("trigger full", trigger),
        ("trigger command", Command(type: RunTrigger.type, requestId: "r", identity: .master, payload: trigger)),
        ("trigger result empty", TriggerResult()),
        ("trigger result", CommandReply<TriggerResult>.success(
            TriggerResult(object: .object(["name": .string("Tom")]), query: nil, objects: [.null]))),
        ("json value", JSONValue.object(["b": .number(2), "a": .object(["é": .bool(true), "e": .null, "E": .array([])])])),
    ]

    static let fixtures: [String: String] = [
        "identity anonymous": "{\"isMaster\":false,\"isReadOnlyMaster\":false,\"roles\":[]}",
        "identity master": "{\"isMaster\":true,\"isReadOnlyMaster\":false,\"roles\":[]}",
        "identity read-only master": "{\"isMaster\":false,\"isReadOnlyMaster\":true,\"roles\":[]}",
        "identity full": "{\"installationId\":\"inst-1\",\"isMaster\":false,\"isReadOnlyMaster\":false,\"roles\":[\"role:admins\",\"role:a \\\"quoted\\\" name\"],\"sessionToken\":\"r:abc\",\"userId\":\"u1\"}",
        "request minimal": "{\"method\":\"GET\",\"path\":\"classes/Cat/xyz\",\"query\":{},\"serverURL\":\"http://127.0.0.1:1337/parse\"}",
        "request full": "{\"body\":\"{\\\"name\\\":\\\"T\u{14d}m\\\\n\u{1f600}\\\",\\\"tab\\\":\\\"\\t\\\",\\\"ctl\\\":\\\"\\u0001\u{7f}\u{2028}\\\"}\",\"context\":{\"a\":[null,-0.5,1e+21,123456789012],\"z\":1},\"headers\":{\"X-a\":\"1\",\"user-agent\":\"sdk/1.0\",\"x-b\":\"2\"},\"idempotent\":true,\"ip\":\"::1\",\"method\":\"PUT\",\"path\":\"classes/Cat/a1\",\"query\":{\"B\":\"/\",\"limit\":\"25\",\"where\":\"{\\\"name\\\":{\\\"$regex\\\":\\\"^T\\\\\\\\d\\\"}}\"},\"serverURL\":\"https://example.com/parse\"}",
        "request not idempotent, null context": "{\"body\":\"{}\",\"context\":null,\"idempotent\":false,\"method\":\"POST\",\"path\":\"batch\",\"query\":{},\"serverURL\":\"s\"}",
        "response": "{\"body\":\"{\\\"objectId\\\":\\\"a1\\\",\\\"n\\\":1.5}\",\"headers\":{\"A\":\"b\",\"Location\":\"http://h/parse/classes/Cat/a1\"},\"status\":201}",
        "command get": "{\"identity\":{\"isMaster\":false,\"isReadOnlyMaster\":false,\"roles\":[]},\"payload\":{\"method\":\"GET\",\"path\":\"classes/Cat/xyz\",\"query\":{},\"serverURL\":\"http://127.0.0.1:1337/parse\"},\"requestId\":\"req-1\",\"type\":\"rest.v1\"}",
        "command full": "{\"identity\":{\"installationId\":\"inst-1\",\"isMaster\":false,\"isReadOnlyMaster\":false,\"roles\":[\"role:admins\",\"role:a \\\"quoted\\\" name\"],\"sessionToken\":\"r:abc\",\"userId\":\"u1\"},\"payload\":{\"body\":\"{\\\"name\\\":\\\"T\u{14d}m\\\\n\u{1f600}\\\",\\\"tab\\\":\\\"\\t\\\",\\\"ctl\\\":\\\"\\u0001\u{7f}\u{2028}\\\"}\",\"context\":{\"a\":[null,-0.5,1e+21,123456789012],\"z\":1},\"headers\":{\"X-a\":\"1\",\"user-agent\":\"sdk/1.0\",\"x-b\":\"2\"},\"idempotent\":true,\"ip\":\"::1\",\"method\":\"PUT\",\"path\":\"classes/Cat/a1\",\"query\":{\"B\":\"/\",\"limit\":\"25\",\"where\":\"{\\\"name\\\":{\\\"$regex\\\":\\\"^T\\\\\\\\d\\\"}}\"},\"serverURL\":\"https://example.com/parse\"},\"requestId\":\"req-2\",\"type\":\"rest.v1\"}",
        "reply success": "{\"ok\":{\"body\":\"{}\",\"headers\":{},\"status\":200}}",
        "reply failure": "{\"error\":{\"code\":101,\"error\":\"Object \\\"x\\\" not found.\"}}",
        "reply empty": "{\"ok\":{}}",
        "reply empty failure": "{\"error\":{\"code\":-1,\"error\":\"odd\"}}",
        "parse error": "{\"code\":1,\"error\":\"Internal server error.\"}",
        "cast vote": "{\"className\":\"Cat\",\"field\":\"votes\",\"kind\":\"increment\",\"objectId\":\"a1\",\"value\":-1}",
        "cast vote set": "{\"className\":\"Cat\",\"field\":\"votes\",\"kind\":\"set\",\"objectId\":\"a1\",\"value\":2.5}",
        "vote command": "{\"identity\":{\"installationId\":\"inst-1\",\"isMaster\":false,\"isReadOnlyMaster\":false,\"roles\":[\"role:admins\",\"role:a \\\"quoted\\\" name\"],\"sessionToken\":\"r:abc\",\"userId\":\"u1\"},\"payload\":{\"className\":\"Cat\",\"field\":\"votes\",\"kind\":\"increment\",\"objectId\":\"a1\",\"value\":1},\"requestId\":\"r\",\"type\":\"votes.cast.v1\"}",
        "apply ballots": "{\"groups\":[{\"ballots\":[{\"ballotId\":\"0193a0c4-1b2c-7d3e-8f40-123456789abc\",\"kind\":\"increment\",\"value\":1,\"voter\":{\"installationId\":\"inst-1\",\"isMaster\":false,\"isReadOnlyMaster\":false,\"roles\":[\"role:admins\",\"role:a \\\"quoted\\\" name\"],\"sessionToken\":\"r:abc\",\"userId\":\"u1\"}},{\"ballotId\":\"0193a0c4-1b2c-7d3e-8f40-123456789abd\",\"kind\":\"set\",\"value\":7.5,\"voter\":{\"isMaster\":false,\"isReadOnlyMaster\":false,\"roles\":[]}}],\"className\":\"Cat\",\"field\":\"votes\",\"objectId\":\"a1\",\"oncePerUser\":true},{\"ballots\":[],\"className\":\"Dog\",\"field\":\"likes\",\"objectId\":\"b2\",\"oncePerUser\":false}]}",
        "apply ballots command": "{\"identity\":{\"isMaster\":true,\"isReadOnlyMaster\":false,\"roles\":[]},\"payload\":{\"groups\":[{\"ballots\":[{\"ballotId\":\"0193a0c4-1b2c-7d3e-8f40-123456789abc\",\"kind\":\"increment\",\"value\":1,\"voter\":{\"installationId\":\"inst-1\",\"isMaster\":false,\"isReadOnlyMaster\":false,\"roles\":[\"role:admins\",\"role:a \\\"quoted\\\" name\"],\"sessionToken\":\"r:abc\",\"userId\":\"u1\"}},{\"ballotId\":\"0193a0c4-1b2c-7d3e-8f40-123456789abd\",\"kind\":\"set\",\"value\":7.5,\"voter\":{\"isMaster\":false,\"isReadOnlyMaster\":false,\"roles\":[]}}],\"className\":\"Cat\",\"field\":\"votes\",\"objectId\":\"a1\",\"oncePerUser\":true},{\"ballots\":[],\"className\":\"Dog\",\"field\":\"likes\",\"objectId\":\"b2\",\"oncePerUser\":false}]},\"requestId\":\"r\",\"type\":\"votes.apply.v1\"}",
        "ballots applied": "{\"outcomes\":[{\"amount\":1,\"ballotId\":\"x1\",\"sequence\":12,\"total\":12,\"updatedAt\":\"2026-11-30T20:00:00.000Z\"},{\"ballotId\":\"x2\",\"error\":{\"code\":101,\"error\":\"Object not found.\"}},{\"amount\":-0.25,\"ballotId\":\"x3\",\"total\":1e-07,\"updatedAt\":\"2026-11-30T20:00:00.000Z\"}]}",
        "ballots applied reply": "{\"ok\":{\"outcomes\":[{\"amount\":1,\"ballotId\":\"x1\",\"sequence\":12,\"total\":12,\"updatedAt\":\"2026-11-30T20:00:00.000Z\"},{\"ballotId\":\"x2\",\"error\":{\"code\":101,\"error\":\"Object not found.\"}},{\"amount\":-0.25,\"ballotId\":\"x3\",\"total\":1e-07,\"updatedAt\":\"2026-11-30T20:00:00.000Z\"}]}}",
        "cloud function": "{\"headers\":{\"user-agent\":\"sdk\"},\"ip\":\"::1\",\"name\":\"echo\",\"params\":{\"a\":[1,null,\"\u{e9}\"]}}",
        "cloud function command": "{\"identity\":{\"installationId\":\"inst-1\",\"isMaster\":false,\"isReadOnlyMaster\":false,\"roles\":[\"role:admins\",\"role:a \\\"quoted\\\" name\"],\"sessionToken\":\"r:abc\",\"userId\":\"u1\"},\"payload\":{\"headers\":{},\"ip\":\"\",\"name\":\"f\",\"params\":{}},\"requestId\":\"r\",\"type\":\"cloud.function.run.v1\"}",
        "cloud function result": "{\"result\":\"Foo\"}",
        "cloud function null result": "{\"ok\":{\"result\":null}}",
        "worker call": "{\"kind\":\"function\",\"name\":\"echo\",\"request\":{\"params\":{}}}",
        "worker trigger call": "{\"className\":\"Cat\",\"kind\":\"trigger\",\"name\":\"beforeSave\",\"request\":{}}",
        "trigger key": "{\"className\":\"@File\",\"triggerName\":\"beforeSaveFile\"}",
        "trigger minimal": "{\"headers\":{},\"ip\":\"\",\"key\":{\"className\":\"Cat\",\"triggerName\":\"beforeSave\"}}",
        "trigger full": "{\"context\":\"c\",\"eventId\":\"e-1\",\"headers\":{\"h\":\"v\"},\"ip\":\"1.2.3.4\",\"key\":{\"className\":\"Cat\",\"triggerName\":\"afterFind\"},\"object\":{\"B\":false,\"a\":1},\"objects\":[{},null],\"original\":null,\"query\":{\"where\":{}}}",
        "trigger command": "{\"identity\":{\"isMaster\":true,\"isReadOnlyMaster\":false,\"roles\":[]},\"payload\":{\"context\":\"c\",\"eventId\":\"e-1\",\"headers\":{\"h\":\"v\"},\"ip\":\"1.2.3.4\",\"key\":{\"className\":\"Cat\",\"triggerName\":\"afterFind\"},\"object\":{\"B\":false,\"a\":1},\"objects\":[{},null],\"original\":null,\"query\":{\"where\":{}}},\"requestId\":\"r\",\"type\":\"cloud.trigger.run.v1\"}",
        "trigger result empty": "{}",
        "trigger result": "{\"ok\":{\"object\":{\"name\":\"Tom\"},\"objects\":[null]}}",
        "json value": "{\"a\":{\"E\":[],\"e\":null,\"\u{e9}\":true},\"b\":2}",
    ]

    /// Samples with an optional member set to an explicit null, which reads back as absent (as Foundation's decoder
    /// reads it), so their bytes do not survive a round trip.
    static let explicitNulls: Set<String> = ["request not idempotent, null context", "trigger full", "trigger command"]

    static func check<T: Codable>(_ value: T, _ expected: String, roundTrips: Bool) throws {
        let bytes = try JSONValueEncoder().encode(value)
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        let decoded = try JSONValueDecoder().decode(T.self, from: Array(expected.utf8))
        guard roundTrips else { return }
        #expect(String(decoding: try JSONValueEncoder().encode(decoded), as: UTF8.self) == expected)
    }

    @Test func everySampleHasItsFixture() {
        #expect(Set(Self.samples.map(\.name)) == Set(Self.fixtures.keys))
    }

    @Test(arguments: samples.map(\.name))
    func encodesTheFormerMirrorsBytes(_ name: String) throws {
        let sample = try #require(Self.samples.first { $0.name == name })
        try Self.check(sample.value, try #require(Self.fixtures[name]), roundTrips: !Self.explicitNulls.contains(name))
    }

    /// Equal values after a trip through the fixture bytes, for the types that can say so.
    @Test func decodesTheFixturesToTheSamples() throws {
        func same<T: Codable & Equatable>(_ name: String, as type: T.Type) throws {
            let expected = try #require(Self.samples.first { $0.name == name }?.value as? T)
            #expect(try JSONValueDecoder().decode(T.self, from: Array(try #require(Self.fixtures[name]).utf8)) == expected)
        }
        try same("identity full", as: Identity.self)
        try same("request full", as: RESTRequest.self)
        try same("response", as: RESTResponse.self)
        try same("apply ballots", as: ApplyBallots.self)
        try same("ballots applied", as: BallotsApplied.self)
        try same("trigger minimal", as: RunTrigger.self)
        try same("worker trigger call", as: CloudWorkerCall.self)
        try same("cloud function", as: RunCloudFunction.self)
        try same("json value", as: JSONValue.self)
    }
}
