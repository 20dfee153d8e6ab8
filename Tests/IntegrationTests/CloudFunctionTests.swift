import Foundation
import Testing

extension IntegrationSuite {
    /// `POST /functions/<name>` through the example worker and through webhooks started here.
    @Suite struct CloudFunctions {
        @Test func aFunctionGetsItsParamsAndTheCallersUser() async throws {
            let user = try await AuthAPI.signUp("cloud")
            let reply = try await CloudAPI.run("whoami", ["movie": "Up", "stars": 4], token: user.token,
                                               headers: ["X-Parse-Installation-Id": "cloud-install-1"])
            #expect(reply.status == 200, "\(reply.text)")
            let result = try #require(reply.json?["result"] as? [String: Any])
            #expect(CloudAPI.text(result["params"]) == #"{"movie":"Up","stars":4}"#)
            let seen = try #require(result["user"] as? [String: Any])
            #expect(seen["objectId"] as? String == user.id)
            #expect(seen["username"] as? String == user.username)
            #expect(seen["sessionToken"] as? String == user.token)
            #expect(seen["password"] == nil)
            #expect(result["master"] as? Bool == false)
            #expect(result["installationId"] as? String == "cloud-install-1")
        }

        @Test func withoutASessionThereIsNoUserAndTheMasterKeyIsSaid() async throws {
            let anonymous = try #require(try await CloudAPI.run("whoami").json?["result"] as? [String: Any])
            #expect(anonymous["user"] is NSNull)
            #expect(anonymous["master"] as? Bool == false)
            let master = try #require(try await CloudAPI.run("whoami", master: true).json?["result"] as? [String: Any])
            #expect(master["master"] as? Bool == true)
        }

        /// parse-server 9's `res.status()` and `res.header()`, from a worker's `FunctionResponse`.
        @Test func aFunctionChoosesItsStatusAndHeaders() async throws {
            let reply = try await CloudAPI.run("respond", ["result": ["id": 7], "status": 201,
                                                           "headers": ["X-Request-Cost": "3", "Cache-Control": "no-store"]])
            #expect(reply.status == 201, "\(reply.text)")
            #expect(reply.header("X-Request-Cost") == "3" && reply.header("Cache-Control") == "no-store")
            #expect(CloudAPI.text(reply.json?["result"]) == #"{"id":7}"#)
            let teapot = try await CloudAPI.run("respond", ["result": "short and stout", "status": 418])
            #expect(teapot.status == 418 && teapot.json?["result"] as? String == "short and stout", "\(teapot.text)")
            let smuggled = try await CloudAPI.run("respond", ["headers": ["X-A": "a\r\nSet-Cookie: s=1"]])
            #expect(smuggled.status == 400 && smuggled.json?["code"] as? Int == 141, "\(smuggled.text)")
            #expect(smuggled.header("Set-Cookie") == nil)
        }

        @Test func queryParametersJoinTheBody() async throws {
            var headers = AuthAPI.headers()
            headers["Content-Type"] = "application/json"
            let reply = try await HTTP.send("POST", "/functions/echo?b=2", headers: headers, body: AuthAPI.json(["a": 1]))
            #expect(CloudAPI.text(reply.json?["result"]) == #"{"a":1,"b":"2"}"#)
        }

        @Test func functionsRunInsideABatch() async throws {
            let mount = URL(string: TestStack.serverURL)?.path ?? "/parse"
            let reply = try await PostsHTTP.send("POST", "/batch", ["requests": [
                ["method": "POST", "path": "\(mount)/functions/echo", "body": ["n": 1]],
                ["method": "POST", "path": "\(mount)/functions/noSuchFunction", "body": [:]],
            ]])
            #expect(reply.status == 200, "\(reply.text)")
            let items = try #require((try? JSONSerialization.jsonObject(with: reply.body)) as? [[String: Any]])
            #expect(items.count == 2)
            #expect(CloudAPI.text(items.first?["success"]) == #"{"result":{"n":1}}"#)
            #expect(CloudAPI.text(items.last?["error"]) == #"{"code":141,"error":"Invalid function: \"noSuchFunction\""}"#)
        }

        @Test func aRefusalKeepsItsCodeElse141() async throws {
            let coded = try await CloudAPI.run("refuse", ["code": 142, "message": "name is required"])
            #expect(coded.status == 400)
            #expect(coded.text == #"{"code":142,"error":"name is required"}"#)
            let plain = try await CloudAPI.run("bar", ["key2": "nope"])
            #expect(plain.status == 400)
            #expect(AuthAPI.error(plain) == (141, "bad stuff happened"))
        }

        @Test func anUnknownFunctionIsParseServersError() async throws {
            let reply = try await CloudAPI.run("noSuchFunction")
            #expect(reply.status == 400)
            #expect(reply.text == #"{"code":141,"error":"Invalid function: \"noSuchFunction\""}"#)
        }

        @Test func aWorkerCallsTheAPIBackAsMasterAndAsTheCaller() async throws {
            let className = PostsHTTP.uniqueClass("CloudCount")
            for index in 0..<3 { _ = try await PostsHTTP.create(className, ["n": index]) }
            let count = try await CloudAPI.run("countObjects", ["className": className])
            #expect(count.json?["result"] as? Int == 3, "\(count.text)")
            let user = try await AuthAPI.signUp("callback")
            let name = try await CloudAPI.run("callerUsername", token: user.token)
            #expect(name.json?["result"] as? String == user.username, "\(name.text)")
        }

        @Test func aWebhookGetsTheKeyAndParseServersBody() async throws {
            let receiver = try WebhookReceiver { body in
                let params = body["params"] as? [String: Any] ?? [:]
                if let message = params["fail"] as? String { return ["error": message] }
                return ["success": ["echo": params, "user": (body["user"] as? [String: Any])?["objectId"] ?? NSNull()]]
            }
            let name = CloudAPI.uniqueName("hook")
            let created = try await PostsHTTP.send("POST", "/hooks/functions", ["functionName": name, "url": receiver.url],
                                                   master: true)
            #expect(created.status == 200, "\(created.text)")
            let user = try await AuthAPI.signUp("hooked")
            let reply = try await CloudAPI.run(name, ["x": 1], token: user.token)
            #expect(reply.status == 200, "\(reply.text)")
            let result = try #require(reply.json?["result"] as? [String: Any])
            #expect(CloudAPI.text(result["echo"]) == #"{"x":1}"#)
            #expect(result["user"] as? String == user.id)
            let call = try #require(receiver.calls.last)
            #expect(call.headers["x-parse-webhook-key"] == CloudAPI.webhookKey)
            #expect(call.headers["content-type"] == "application/json")
            #expect(call.body["functionName"] as? String == name)
            #expect(call.body["master"] as? Bool == false)
            #expect(call.body["ip"] is String)
            #expect((call.body["headers"] as? [String: Any])?["x-parse-session-token"] as? String == user.token)
            #expect((call.body["headers"] as? [String: Any])?["x-parse-master-key"] == nil)
            #expect(Set(call.body.keys).isSuperset(of: ["params", "user", "master", "headers", "ip", "functionName"]))

            let refused = try await CloudAPI.run(name, ["fail": "not today"])
            #expect(refused.status == 400)
            #expect(AuthAPI.error(refused) == (141, "not today"))
            _ = try await PostsHTTP.send("PUT", "/hooks/functions/\(name)", ["__op": "Delete"], master: true)
            await receiver.stop()
        }

        @Test func aTargetThatNeverAnswersIsAClearTimeout() async throws {
            let receiver = try WebhookReceiver { _ in nil }
            let name = CloudAPI.uniqueName("silent")
            _ = try await PostsHTTP.send("POST", "/hooks/functions", ["functionName": name, "url": receiver.url], master: true)
            let reply = try await CloudAPI.run(name)
            #expect(reply.status == 400, "\(reply.text)")
            #expect(AuthAPI.error(reply) == (141, "Cloud Code timed out: function \"\(name)\" did not answer within \(CloudAPI.timeoutMilliseconds) ms."))
            #expect(receiver.calls.count == 1)
            let slow = try await CloudAPI.run("sleep", ["ms": 20_000])
            #expect(AuthAPI.error(slow) == (141, "Cloud Code timed out: function \"sleep\" did not answer within \(CloudAPI.timeoutMilliseconds) ms."))
            _ = try await PostsHTTP.send("PUT", "/hooks/functions/\(name)", ["__op": "Delete"], master: true)
        }

        @Test func twoWorkersOnOneQueueShareTheCalls() async throws {
            let second = "second-\(UUID().uuidString.prefix(8))"
            try await CloudAPI.withSecondWorker(instance: second) {
                var seen: [String: Int] = [:]
                // The second worker needs a moment to connect; then calls alternate between the two consumers.
                let deadline = ContinuousClock.now + .seconds(30)
                while (seen[second] ?? 0) < 3 && ContinuousClock.now < deadline {
                    let reply = try await CloudAPI.run("instance")
                    if let instance = reply.json?["result"] as? String { seen[instance, default: 0] += 1 }
                }
                #expect((seen[second] ?? 0) >= 3, "\(seen)")
                #expect(seen.keys.contains { $0 != second }, "\(seen)")
                #expect(seen.count == 2, "\(seen)")
            }
        }
    }
}
