import Foundation
import Testing

extension IntegrationSuite {
    /// parse-server's Hooks API: webhooks registered, listed, changed and deleted through `/parse/hooks`.
    @Suite struct CloudHooks {
        func hooks(_ method: String, _ path: String, _ body: [String: Any]? = nil, master: Bool = true) async throws -> Reply {
            try await PostsHTTP.send(method, "/hooks" + path, body, master: master)
        }

        @Test func aFunctionHookLivesThroughItsWholeCycle() async throws {
            let name = CloudAPI.uniqueName("cycle")
            let created = try await hooks("POST", "/functions", ["functionName": name, "url": "https://example.com/a"])
            #expect(created.status == 200)
            #expect(created.json as? [String: String] == ["functionName": name, "url": "https://example.com/a"])
            let again = try await hooks("POST", "/functions", ["functionName": name, "url": "https://example.com/a"])
            #expect(AuthAPI.error(again) == (143, "function name: \(name) already exists"))
            let listed = try await hooks("GET", "/functions")
            let all = try #require((try? JSONSerialization.jsonObject(with: listed.body)) as? [[String: String]])
            #expect(all.contains(["functionName": name, "url": "https://example.com/a"]))
            let edited = try await hooks("PUT", "/functions/\(name)", ["url": "https://example.com/b"])
            #expect(edited.json as? [String: String] == ["functionName": name, "url": "https://example.com/b"])
            let fetched = try await hooks("GET", "/functions/\(name)")
            #expect(fetched.json as? [String: String] == ["functionName": name, "url": "https://example.com/b"])
            let deleted = try await hooks("PUT", "/functions/\(name)", ["__op": "Delete"])
            #expect(deleted.status == 200 && deleted.text == "{}")
            let gone = try await hooks("GET", "/functions/\(name)")
            #expect(AuthAPI.error(gone) == (143, "no function named: \(name) is defined"))
            let editGone = try await hooks("PUT", "/functions/\(name)", ["url": "https://example.com/c"])
            #expect(AuthAPI.error(editGone) == (143, "no function named: \(name) is defined"))
        }

        @Test func aTriggerHookLivesThroughItsWholeCycle() async throws {
            let className = PostsHTTP.uniqueClass("Hooked")
            let created = try await hooks("POST", "/triggers",
                                          ["className": className, "triggerName": "beforeSave", "url": "https://example.com/t"])
            #expect(created.json as? [String: String] == ["className": className, "triggerName": "beforeSave",
                                                          "url": "https://example.com/t"])
            let again = try await hooks("POST", "/triggers",
                                        ["className": className, "triggerName": "beforeSave", "url": "https://example.com/t"])
            #expect(AuthAPI.error(again) == (143, "class \(className) already has trigger beforeSave"))
            let listed = try await hooks("GET", "/triggers")
            let all = try #require((try? JSONSerialization.jsonObject(with: listed.body)) as? [[String: String]])
            #expect(all.contains { $0["className"] == className })
            let edited = try await hooks("PUT", "/triggers/\(className)/beforeSave", ["url": "https://example.com/u"])
            #expect(edited.json?["url"] as? String == "https://example.com/u")
            _ = try await hooks("PUT", "/triggers/\(className)/beforeSave", ["__op": "Delete"])
            let gone = try await hooks("GET", "/triggers/\(className)/beforeSave")
            #expect(AuthAPI.error(gone) == (143, "class \(className) does not exist"))
        }

        @Test func badDeclarationsAre143() async throws {
            let noURL = try await hooks("POST", "/functions", ["functionName": CloudAPI.uniqueName("nourl")])
            #expect(AuthAPI.error(noURL) == (143, "invalid hook declaration"))
            let badTrigger = try await hooks("POST", "/triggers",
                                             ["className": "Cat", "triggerName": "beforeLunch", "url": "https://example.com"])
            #expect(AuthAPI.error(badTrigger) == (143, "invalid hook declaration"))
            let nothing = try await hooks("POST", "/functions", [:])
            #expect(AuthAPI.error(nothing) == (143, "invalid hook declaration"))
        }

        @Test func hooksNeedTheMasterKey() async throws {
            for (method, path) in [("GET", "/functions"), ("GET", "/triggers"), ("POST", "/functions")] {
                let reply = try await hooks(method, path, method == "POST" ? ["functionName": "x", "url": "https://e.com"] : nil,
                                            master: false)
                #expect(reply.status == 403, "\(method) \(path)")
                #expect(reply.text == #"{"error":"unauthorized: master key is required"}"#)
            }
        }

        @Test func aWebhookWinsOverTheWorkersFunctionOfTheSameName() async throws {
            let receiver = try WebhookReceiver { _ in ["success": "from the webhook"] }
            _ = try await hooks("POST", "/functions", ["functionName": "echo", "url": receiver.url])
            let hooked = try await CloudAPI.run("echo", ["a": 1])
            _ = try await hooks("PUT", "/functions/echo", ["__op": "Delete"])
            #expect(hooked.json?["result"] as? String == "from the webhook")
            let worker = try await CloudAPI.run("echo", ["a": 1])
            #expect(worker.json?["result"] as? [String: Int] == ["a": 1])
            await receiver.stop()
        }
    }
}
