import Foundation
import ParseWire
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension IntegrationSuite {
    /// Cloud Code triggers over HTTP, against a webhook receiver on loopback registered through `/parse/hooks`, and
    /// the example worker's triggers on `CloudTriggerCat`.
    @Suite struct CloudTriggerTests {
        @Test func aBeforeSaveWebhookChangesAFieldThatIsStoredAndAnswered() async throws {
            let receiver = try TriggerWebhookReceiver()
            let className = PostsHTTP.uniqueClass("TrigSave")
            receiver.handle("/save") { body in
                var object = body["object"]?.objectValue ?? [:]
                object["name"] = .string((object["name"]?.stringValue ?? "").uppercased())
                return TriggerHooks.success(.object(object))
            }
            try await TriggerHooks.register(className, "beforeSave", url: receiver.url("/save"))
            try await TriggerHooks.waitUntilPostsKnows(className, receiver: receiver)
            let created = try await PostsHTTP.send("POST", "/classes/\(className)", ["name": "tom", "age": 3])
            #expect(created.status == 201)
            #expect(created.json?["name"] as? String == "TOM")
            let id = try #require(created.json?["objectId"] as? String)
            let stored = try await PostsHTTP.send("GET", "/classes/\(className)/\(id)")
            #expect(stored.json?["name"] as? String == "TOM")
            #expect(stored.json?["age"] as? Int == 3)

            let call = try #require(receiver.calls("/save").first)
            #expect(call.body["triggerName"] == .string("beforeSave"))
            #expect(call.body["object"]?["className"] == .string(className))
            #expect(call.body["object"]?["name"] == .string("tom"))
            #expect(call.webhookKey == TestStack.environment["PARSE_TEST_WEBHOOK_KEY"])

            // An update: the trigger sees the original and the object with the change applied.
            let updated = try await PostsHTTP.send("PUT", "/classes/\(className)/\(id)", ["name": "tim"],
                                                   query: [:])
            #expect(updated.status == 200)
            #expect(updated.json?["name"] as? String == "TIM")
            let second = try #require(receiver.calls("/save").last)
            #expect(second.body["original"]?["name"] == .string("TOM"))
            #expect(second.body["object"]?["name"] == .string("tim"))
            #expect(second.body["object"]?["age"] == .number(3))
            await receiver.stop()
        }

        @Test func aRefusingBeforeSaveStoresNothingAndAnswersItsError() async throws {
            let receiver = try TriggerWebhookReceiver()
            let className = PostsHTTP.uniqueClass("TrigRefuse")
            receiver.handle("/save") { body in
                body["object"]?["name"] == .string("bad") ? TriggerHooks.refusal(142, "No bad names.")
                    : TriggerHooks.success(body["object"] ?? .null)
            }
            try await TriggerHooks.register(className, "beforeSave", url: receiver.url("/save"))
            try await TriggerHooks.waitUntilPostsKnows(className, receiver: receiver)
            let refused = try await PostsHTTP.send("POST", "/classes/\(className)", ["name": "bad"])
            #expect(refused.status == 400)
            #expect(AuthAPI.error(refused) == (142, "No bad names."))
            _ = try await PostsHTTP.create(className, ["name": "good"])
            let found = try await PostsHTTP.send("GET", "/classes/\(className)", master: true)
            let names = (found.json?["results"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(names == ["good"])

            // The context a client sends reaches the trigger.
            let context = try await HTTP.send("POST", "/classes/\(className)",
                                              headers: HTTP.appHeaders.merging(["Content-Type": "application/json",
                                                                                "X-Parse-Cloud-Context": #"{"why":"test"}"#]) { $1 },
                                              body: Data(#"{"name":"ctx"}"#.utf8))
            #expect(context.status == 201)
            #expect(receiver.calls("/save").last?.body["context"] == .object(["why": .string("test")]))
            let malformed = try await HTTP.send("POST", "/classes/\(className)",
                                                headers: HTTP.appHeaders.merging(["X-Parse-Cloud-Context": "[1]"]) { $1 },
                                                body: Data(#"{"name":"ctx"}"#.utf8))
            #expect(AuthAPI.error(malformed) == (107, "Invalid object for context."))
            await receiver.stop()
        }

        @Test func aRefusingBeforeDeleteKeepsTheObject() async throws {
            let receiver = try TriggerWebhookReceiver()
            let className = PostsHTTP.uniqueClass("TrigDelete")
            let id = try await PostsHTTP.create(className, ["name": "stays"])
            receiver.handle("/delete") { _ in TriggerHooks.refusal(141, "Not this one.") }
            try await TriggerHooks.register(className, "beforeDelete", url: receiver.url("/delete"))
            try await TriggerHooks.waitUntilPostsKnows(className, receiver: receiver)
            let refused = try await PostsHTTP.send("DELETE", "/classes/\(className)/\(id)")
            #expect(AuthAPI.error(refused) == (141, "Not this one."))
            let stored = try await PostsHTTP.send("GET", "/classes/\(className)/\(id)")
            #expect(stored.json?["name"] as? String == "stays")
            #expect(receiver.calls("/delete").first?.body["object"]?["objectId"] == .string(id))
            await receiver.stop()
        }

        @Test func beforeFindChangesTheQueryAndAfterFindTheResults() async throws {
            let receiver = try TriggerWebhookReceiver()
            let className = PostsHTTP.uniqueClass("TrigFind")
            for n in 1...4 { _ = try await PostsHTTP.create(className, ["n": n]) }
            receiver.handle("/find") { body in
                var query = body["query"]?.objectValue ?? [:]
                query["where"] = .object(["n": .object(["$gte": .number(3)])])
                return TriggerHooks.success(.object(query))
            }
            receiver.handle("/found") { body in
                TriggerHooks.success(.array((body["objects"]?.arrayValue ?? []).map { object in
                    var fields = object.objectValue ?? [:]
                    fields["seen"] = .bool(true)
                    return .object(fields)
                }))
            }
            try await TriggerHooks.register(className, "afterFind", url: receiver.url("/found"))
            try await TriggerHooks.register(className, "beforeFind", url: receiver.url("/find"))
            let found = try await TriggerHooks.retry({
                try await PostsHTTP.send("GET", "/classes/\(className)", query: ["order": "n"])
            }, until: { ($0.json?["results"] as? [[String: Any]])?.first?["seen"] as? Bool == true && !receiver.calls("/find").isEmpty })
            let results = found.json?["results"] as? [[String: Any]] ?? []
            #expect(results.compactMap { $0["n"] as? Int } == [3, 4])
            #expect(results.allSatisfy { $0["seen"] as? Bool == true })
            await receiver.stop()
        }

        @Test func afterSaveIsSeenOncePerWrite() async throws {
            let receiver = try TriggerWebhookReceiver()
            let className = PostsHTTP.uniqueClass("TrigAfter")
            try await TriggerHooks.register(className, "afterSave", url: receiver.url("/after"))
            try await TriggerHooks.waitUntilPostsKnows(className, receiver: receiver)
            var keys: Set<String> = []
            for n in 1...5 {
                let key = UUID().uuidString
                keys.insert(key)
                _ = try await PostsHTTP.create(className, ["n": n, "key": key])
            }
            let calls = try await receiver.waitForCalls("/after", timeout: .seconds(30)) { calls in
                Set(calls.compactMap { $0.body["object"]?["key"]?.stringValue }) == keys
            }
            let delivered = calls.compactMap { $0.body["object"]?["key"]?.stringValue }
            #expect(Set(delivered) == keys)
            #expect(delivered.count == keys.count)
            #expect(calls.allSatisfy { $0.body["triggerName"] == .string("afterSave") })
            await receiver.stop()
        }

        @Test func afterSaveFailedAtTheReceiverIsDeliveredAgainLater() async throws {
            let receiver = try TriggerWebhookReceiver()
            let className = PostsHTTP.uniqueClass("TrigLater")
            receiver.setFailing("/after", true)
            try await TriggerHooks.register(className, "afterSave", url: receiver.url("/after"))
            try await TriggerHooks.waitUntilPostsKnows(className, receiver: receiver)
            var keys: Set<String> = []
            for n in 1...3 {
                let key = UUID().uuidString
                keys.insert(key)
                // The client's write succeeds although its afterSave cannot be delivered.
                let created = try await PostsHTTP.send("POST", "/classes/\(className)", ["n": n, "key": key])
                #expect(created.status == 201)
            }
            func keysIn(_ calls: [TriggerWebhookReceiver.Call]) -> Set<String> {
                Set(calls.compactMap { $0.body["object"]?["key"]?.stringValue })
            }
            // Every afterSave reached the receiver and failed there...
            let failed = try await receiver.waitForCalls("/after", timeout: .seconds(30)) { calls in
                keysIn(calls.filter { $0.failed }) == keys
            }
            #expect(keysIn(failed.filter { $0.failed }) == keys)
            // ...and once it works again, each is delivered.
            receiver.setFailing("/after", false)
            let calls = try await receiver.waitForCalls("/after", timeout: .seconds(90)) { calls in
                keysIn(calls.filter { !$0.failed }) == keys
            }
            #expect(keysIn(calls.filter { !$0.failed }) == keys)
            await receiver.stop()
        }

        @Test func theExampleWorkersBeforeSaveChangesAndRefusesWrites() async throws {
            let cat = try await PostsHTTP.send("POST", "/classes/CloudTriggerCat", ["name": "tom"])
            #expect(cat.status == 201)
            #expect(cat.json?["nameLength"] as? Int == 3)
            #expect(cat.json?["checked"] as? Bool == true)
            let id = try #require(cat.json?["objectId"] as? String)
            let stored = try await PostsHTTP.send("GET", "/classes/CloudTriggerCat/\(id)", master: true)
            #expect(stored.json?["nameLength"] as? Int == 3)
            let refused = try await PostsHTTP.send("POST", "/classes/CloudTriggerCat", ["name": "refuse"])
            #expect(AuthAPI.error(refused) == (142, "This name is refused."))
        }

        /// The worker is killed before the writes, so their afterSave calls find it gone; they run once it is back.
        /// Its beforeSave is replaced meanwhile by a webhook that changes nothing (a webhook wins over a worker for
        /// the same trigger), so the writes themselves do not need the worker.
        @Test func afterSaveServedByAWorkerRunsAfterItsKill() async throws {
            let receiver = try TriggerWebhookReceiver()
            receiver.handle("/pass") { body in TriggerHooks.success(body["object"] ?? .object([:])) }
            try await TriggerHooks.register("CloudTriggerCat", "beforeSave", url: receiver.url("/pass"))
            var ids: [String] = []
            try await TestStack.run({
                _ = try await TriggerHooks.retry({
                    try await PostsHTTP.send("POST", "/classes/CloudTriggerCat", ["name": "probe"])
                }, until: { _ in !receiver.calls("/pass").isEmpty })
                try VoteConsumerProcess.kill(service: "cloud-example-worker")
                for n in 1...3 { ids.append(try await PostsHTTP.create("CloudTriggerCat", ["name": "killed\(n)"])) }
                try TestStack.control(["start-service", "cloud-example-worker"])
                let expected = Set(ids)
                let log = try await TriggerHooks.retry({
                    try await PostsHTTP.send("GET", "/classes/CloudTriggerLog", master: true,
                                             query: ["where": #"{"trigger":"afterSave"}"#, "limit": "1000"])
                }, until: { reply in
                    expected.isSubset(of: Set((reply.json?["results"] as? [[String: Any]] ?? []).compactMap { $0["savedId"] as? String }))
                }, for: .seconds(90))
                let saved = Set((log.json?["results"] as? [[String: Any]] ?? []).compactMap { $0["savedId"] as? String })
                #expect(expected.isSubset(of: saved))
            }, thenAlways: { try TestStack.control(["start-service", "cloud-example-worker"]) })
            try await TriggerHooks.remove("CloudTriggerCat", "beforeSave")
            await receiver.stop()
        }

        /// parse-server 8's Config triggers, on `@Config`: beforeSave may refuse an update, afterSave gets the
        /// params as stored.
        @Test func configTriggersGuardAndFollowTheConfig() async throws {
            let receiver = try TriggerWebhookReceiver()
            let key = "cfg\(UInt32.random(in: 0...UInt32.max))"
            receiver.handle("/before") { body in
                body["object"]?["\(key)-forbidden"] != nil ? TriggerHooks.refusal(141, "Not that key.") : TriggerHooks.success(.object([:]))
            }
            receiver.handle("/after") { _ in TriggerHooks.success(.object([:])) }
            try await TriggerHooks.register("@Config", "beforeSave", url: receiver.url("/before"))
            try await TriggerHooks.register("@Config", "afterSave", url: receiver.url("/after"))
            try await TestStack.run({
                let refused = try await TriggerHooks.retry({
                    try await PostsHTTP.send("PUT", "/config", ["params": ["\(key)-forbidden": 1]], master: true)
                }, until: { $0.status != 200 })
                #expect(AuthAPI.error(refused) == (141, "Not that key."))
                let stored = try await PostsHTTP.send("GET", "/config", master: true)
                #expect((stored.json?["params"] as? [String: Any])?["\(key)-forbidden"] == nil)
                let accepted = try await PostsHTTP.send("PUT", "/config", ["params": [key: 7]], master: true)
                #expect(accepted.status == 200, "\(accepted.text)")
                let deadline = ContinuousClock.now + .seconds(15)
                while !receiver.calls("/after").contains(where: { $0.body["object"]?[key] == .number(7) }),
                      ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(100))
                }
                let after = try #require(receiver.calls("/after").last { $0.body["object"]?[key] == .number(7) })
                #expect(after.body["triggerName"] == .string("afterSave"))
            }, thenAlways: {
                try await TriggerHooks.remove("@Config", "beforeSave")
                try await TriggerHooks.remove("@Config", "afterSave")
            })
            await receiver.stop()
        }

        @Test func beforeLoginRefusesALogin() async throws {
            let receiver = try TriggerWebhookReceiver()
            let refusedUser = try await AuthAPI.signUp("trigrefused")
            let allowedUser = try await AuthAPI.signUp("trigallowed")
            receiver.handle("/login") { body in
                body["object"]?["username"] == .string(refusedUser.username)
                    ? TriggerHooks.refusal(141, "Not today.") : TriggerHooks.success(.object([:]))
            }
            try await TriggerHooks.register("_User", "beforeLogin", url: receiver.url("/login"))
            try await TestStack.run({
                let refused = try await TriggerHooks.retry({
                    try await AuthAPI.login(refusedUser.username, refusedUser.password)
                }, until: { $0.status != 200 })
                #expect(AuthAPI.error(refused) == (141, "Not today."))
                let allowed = try await AuthAPI.login(allowedUser.username, allowedUser.password)
                #expect(allowed.status == 200)
                #expect(receiver.calls("/login").last?.body["object"]?["username"] == .string(allowedUser.username))
                #expect(receiver.calls("/login").allSatisfy { $0.body["object"]?["password"] == nil })
            }, thenAlways: {})
            try await TriggerHooks.remove("_User", "beforeLogin")
            // Until auth has heard of the removal, logins still reach the receiver: wait for that before it stops.
            _ = try await TriggerHooks.retry({ try await AuthAPI.login(allowedUser.username, allowedUser.password) }, until: { _ in
                let before = receiver.calls("/login").count
                usleep(300_000)
                return receiver.calls("/login").count == before
            })
            await receiver.stop()
        }

        @Test func aFileBeforeSaveRefusesOrRenamesAndRewritesTheUpload() async throws {
            let receiver = try TriggerWebhookReceiver()
            receiver.handle("/file") { body in
                let file = body["file"]?.objectValue ?? [:]
                let name = file["name"]?.stringValue ?? ""
                if name.hasPrefix("refused") { return TriggerHooks.refusal(130, "No such files.") }
                // Another Parse.File, as parse-server's Cloud Code may return: renamed, its bytes upper-cased.
                if name.hasPrefix("shout"), let data = file["base64"]?.stringValue.flatMap({ Data(base64Encoded: $0) }) {
                    var changed = file
                    changed["name"] = .string("shouted.txt")
                    changed["base64"] = .string(Data(String(decoding: data, as: UTF8.self).uppercased().utf8).base64EncodedString())
                    changed["metadata"] = .object(["shouted": .bool(true)])
                    return TriggerHooks.success(.object(changed))
                }
                return TriggerHooks.success(.object([:]))
            }
            try await TriggerHooks.register("@File", "beforeSaveFile", url: receiver.url("/file"))
            try await TestStack.run({
                let refused = try await TriggerHooks.retry({
                    try await FilesAPI.upload("refused.txt", Data("no".utf8), contentType: "text/plain", master: true)
                }, until: { $0.status != 201 })
                #expect(AuthAPI.error(refused) == (130, "No such files."))
                let kept = try await FilesAPI.upload("kept.txt", Data("yes".utf8), contentType: "text/plain", master: true)
                #expect(kept.status == 201)
                #expect((kept.json?["name"] as? String)?.hasSuffix("_kept.txt") == true, "\(kept.text)")

                let shouted = try await FilesAPI.upload("shout.txt", Data("quiet please".utf8), contentType: "text/plain", master: true)
                #expect(shouted.status == 201, "\(shouted.text)")
                let name = try #require(shouted.json?["name"] as? String)
                #expect(name.hasSuffix("_shouted.txt"), "\(name)")
                let stored = try await FilesAPI.get(try #require(shouted.json?["url"] as? String))
                #expect(stored.text == "QUIET PLEASE")
                let metadata = try await PostsHTTP.send("GET", "/files/\(TestStack.applicationId)/metadata/\(name)")
                #expect(metadata.json?["metadata"] as? [String: Bool] == ["shouted": true], "\(metadata.text)")
            }, thenAlways: {})
            try await TriggerHooks.remove("@File", "beforeSaveFile")
            _ = try await TriggerHooks.retry({
                try await FilesAPI.upload("kept.txt", Data("yes".utf8), contentType: "text/plain", master: true)
            }, until: { _ in
                let before = receiver.calls("/file").count
                usleep(300_000)
                return receiver.calls("/file").count == before
            })
            await receiver.stop()
        }

        @Test func aClassWithoutTriggersIsWrittenWhileCloudIsStopped() async throws {
            let plain = PostsHTTP.uniqueClass("TrigNone")
            try await TestStack.while(["stop-service", "cloud"], restartWith: ["start-service", "cloud"]) {
                // Any call to cloud would wait for it until the request's deadline and fail.
                let created = try await PostsHTTP.send("POST", "/classes/\(plain)", ["n": 1])
                #expect(created.status == 201)
                let id = try #require(created.json?["objectId"] as? String)
                let updated = try await PostsHTTP.send("PUT", "/classes/\(plain)/\(id)", ["n": 2])
                #expect(updated.status == 200)
                let user = try await AuthAPI.signUp("trignone")
                #expect(try await AuthAPI.login(user.username, user.password).status == 200)
                // A class whose trigger cannot run is not written without it.
                let guarded = try await PostsHTTP.send("POST", "/classes/CloudTriggerCat", ["name": "unchecked"])
                #expect(AuthAPI.error(guarded).0 == 141)
                #expect(AuthAPI.error(guarded).1?.hasPrefix("Cloud Code is not reachable") == true)
            }
        }
    }
}
