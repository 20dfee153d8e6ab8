@testable import CloudCore
import Contracts
import ParseWire
import Testing

struct WebhookRequestTests {
    let caller = CallContext(identity: Identity(userId: "u1", sessionToken: "r:token", installationId: "inst-1"),
                             user: .object(["objectId": .string("u1"), "username": .string("ann")]),
                             headers: ["user-agent": "test"], ip: "10.0.0.7")

    @Test func aFunctionRequestCarriesParseServersMembers() {
        let body = WebhookRequest.function("averageVotes", params: .object(["movie": .string("Up")]), context: caller,
                                           cloudContext: nil)
        #expect(body["functionName"] == .string("averageVotes"))
        #expect(body["params"] == .object(["movie": .string("Up")]))
        #expect(body["master"] == .bool(false))
        #expect(body["user"]?["username"] == .string("ann"))
        #expect(body["installationId"] == .string("inst-1"))
        #expect(body["headers"] == .object(["user-agent": .string("test")]))
        #expect(body["ip"] == .string("10.0.0.7"))
        #expect(body["context"] == .object([:]))
    }

    @Test func anAnonymousMasterCallHasNoUser() {
        let master = CallContext(identity: .master, user: nil, headers: [:], ip: "")
        let body = WebhookRequest.function("f", params: .array([]), context: master, cloudContext: nil)
        #expect(body["user"] == nil)
        #expect(body["installationId"] == nil)
        #expect(body["master"] == .bool(true))
        #expect(body["params"] == .object([:]), "params are always an object")
    }

    @Test func aBeforeSaveRequestNamesTheClassOnObjectAndOriginal() {
        let run = RunTrigger(key: TriggerKey(className: "Cat", triggerName: .beforeSave),
                             object: .object(["objectId": .string("c1"), "name": .string("Tom")]),
                             original: .object(["objectId": .string("c1"), "name": .string("Tim")]),
                             context: .object(["a": .number(1)]))
        let body = WebhookRequest.trigger(run, context: caller)
        #expect(body["triggerName"] == .string("beforeSave"))
        #expect(body["object"]?["className"] == .string("Cat"))
        #expect(body["object"]?["name"] == .string("Tom"))
        #expect(body["original"]?["className"] == .string("Cat"))
        #expect(body["context"] == .object(["a": .number(1)]))
        #expect(body["user"]?["objectId"] == .string("u1"))
    }

    @Test func aBeforeFindRequestCarriesTheQueryAndCount() {
        let run = RunTrigger(key: TriggerKey(className: "Cat", triggerName: .beforeFind),
                             query: .object(["where": .object(["name": .string("Tom")]), "count": .bool(true)]))
        let body = WebhookRequest.trigger(run, context: caller)
        #expect(body["query"]?["where"] == .object(["name": .string("Tom")]))
        #expect(body["count"] == .bool(true))
        #expect(body["isGet"] == .bool(false))
    }

    @Test func aJobRequestHasItsIdAndNoUser() {
        let body = WebhookRequest.job("cleanup", jobId: "j1", params: .object(["x": .number(1)]), headers: [:], ip: "1.2.3.4")
        #expect(body["jobName"] == .string("cleanup"))
        #expect(body["jobId"] == .string("j1"))
        #expect(body["params"] == .object(["x": .number(1)]))
        #expect(body["user"] == nil)
    }
}
