import Contracts
@testable import ParseCloud
import ParseWire
import Runtime
import Testing

/// How a worker turns a call into the webhook answer cloud reads.
struct CloudHandlersTests {
    let clients = ClientFactory(configuration: CloudWorkerConfiguration())
    let tap = ScriptLogTap()
    var log: Logger { Logger(service: "cloud-worker", level: .error, metadata: ["request.id": "r1"], tap: tap) }

    func handlers() -> CloudHandlers {
        var handlers = CloudHandlers()
        handlers.functions["echo"] = { request in FunctionResponse(request.params) }
        handlers.functions["whoami"] = { request in FunctionResponse(request.user ?? .null) }
        handlers.functions["created"] = { _ in FunctionResponse(.string("made"), status: 201, headers: ["X-Made": "1"]) }
        handlers.functions["refuse"] = { _ in throw CloudError("no", code: 142) }
        handlers.functions["crash"] = { _ in throw Plain() }
        handlers.functions["chatty"] = { request in
            request.log.info("said", ["n": "1"])
            return FunctionResponse(.null)
        }
        handlers.jobs["tidy"] = { request in .string("tidied \(request.jobId)") }
        handlers.triggers[TriggerKey(className: "Cat", triggerName: .beforeSave)] = { request in
            var object = request.object?.objectValue ?? [:]
            object["checked"] = .bool(true)
            return .object(object)
        }
        return handlers
    }

    struct Plain: Error, CustomStringConvertible { var description: String { "plain failure" } }

    @Test func aResultIsASuccess() async {
        let call = CloudWorkerCall(kind: .function, name: "echo", request: .object(["params": .object(["a": .number(1)])]))
        #expect(await handlers().answer(call, clients: clients, log: log) == .object(["success": .object(["a": .number(1)])]))
    }

    @Test func aChosenStatusAndHeadersTravelBesideTheResult() async {
        let call = CloudWorkerCall(kind: .function, name: "created", request: .object([:]))
        #expect(await handlers().answer(call, clients: clients, log: log) == .object([
            "success": .string("made"), "status": .number(201), "headers": .object(["X-Made": .string("1")]),
        ]))
    }

    @Test func theUserIsTheOneInTheRequest() async {
        let user = JSONValue.object(["objectId": .string("u1"), "sessionToken": .string("r:1")])
        let call = CloudWorkerCall(kind: .function, name: "whoami", request: .object(["user": user]))
        #expect(await handlers().answer(call, clients: clients, log: log) == .object(["success": user]))
    }

    @Test func refusalsKeepTheirCodeAndOtherErrorsAreMessages() async {
        let refused = await handlers().answer(CloudWorkerCall(kind: .function, name: "refuse", request: .object([:])),
                                              clients: clients, log: log)
        #expect(refused == .object(["error": .object(["code": .number(142), "message": .string("no")])]))
        let crashed = await handlers().answer(CloudWorkerCall(kind: .function, name: "crash", request: .object([:])),
                                              clients: clients, log: log)
        #expect(crashed == .object(["error": .string("plain failure")]))
    }

    @Test func anUnknownFunctionIsParseServersError() async {
        let answer = await handlers().answer(CloudWorkerCall(kind: .function, name: "nope", request: .object([:])),
                                             clients: clients, log: log)
        #expect(answer["error"]?["message"] == .string("Invalid function: \"nope\""))
    }

    @Test func jobsAndTriggersGetTheirRequests() async {
        let job = await handlers().answer(CloudWorkerCall(kind: .job, name: "tidy", request: .object(["jobId": .string("j1")])),
                                          clients: clients, log: log)
        #expect(job == .object(["success": .string("tidied j1")]))
        let trigger = await handlers().answer(
            CloudWorkerCall(kind: .trigger, name: "beforeSave", className: "Cat",
                            request: .object(["object": .object(["name": .string("Tom")])])), clients: clients, log: log)
        #expect(trigger == .object(["success": .object(["name": .string("Tom"), "checked": .bool(true)])]))
    }

    /// A handler's `log` is Cloud Code's `console.log`: its lines reach `/scriptlog`, with the call's ids.
    @Test func aHandlersLogLinesAreKept() async {
        tap.keep(.info)
        _ = await handlers().answer(CloudWorkerCall(kind: .function, name: "chatty", request: .object([:])),
                                    clients: clients, log: log)
        let kept = tap.take().records
        #expect(kept.map(\.message) == ["said"])
        #expect(kept.first?.fields == ["request.id": "r1", "functionName": "chatty", "n": "1"])
        #expect(kept.first?.service == "cloud-worker")
    }

    @Test func theRegistrationListsEverything() {
        let registration = handlers().registration(queue: "q")
        #expect(registration.functions == ["chatty", "crash", "created", "echo", "refuse", "whoami"])
        #expect(registration.jobs == ["tidy"])
        #expect(registration.triggers == [TriggerKey(className: "Cat", triggerName: .beforeSave)])
    }
}
