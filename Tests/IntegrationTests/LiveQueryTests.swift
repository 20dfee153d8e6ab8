import Foundation
import Testing

/// Parse LiveQuery against the running `live` service, with a real WebSocket client, while objects change through
/// the REST API: every event op, `keys`, votes, ACLs and roles, sessions, bad input and slow clients.
extension IntegrationSuite {
    @Suite struct LiveQuery {
        static func op(_ message: [String: Any]?) -> String? { message?["op"] as? String }
        static func object(_ message: [String: Any]?) -> [String: Any] { message?["object"] as? [String: Any] ?? [:] }
        static func original(_ message: [String: Any]?) -> [String: Any] { message?["original"] as? [String: Any] ?? [:] }

        static func update(_ className: String, _ id: String, _ body: [String: Any]) async throws {
            let reply = try await PostsHTTP.send("PUT", "/classes/\(className)/\(id)", body, master: true)
            guard reply.status == 200 else { throw PostsTestError(description: "update failed: \(reply.text)") }
        }

        @Test func connectsWithAndWithoutASession() async throws {
            let anonymous = try LiveQueryClient()
            #expect(anonymous.opened)
            let connected = try #require(try anonymous.connect(installationId: "inst-1"))
            #expect(Self.op(connected) == "connected")
            #expect((connected["clientId"] as? String)?.isEmpty == false)
            #expect(connected["installationId"] as? String == "inst-1")

            let user = try await AuthAPI.signUp("live")
            let withSession = try LiveQueryClient()
            let answer = try #require(try withSession.connect(sessionToken: user.token))
            #expect(Self.op(answer) == "connected")
            #expect(answer["installationId"] == nil)
            #expect(answer["clientId"] as? String != connected["clientId"] as? String)

            let wrongApp = try LiveQueryClient()
            try wrongApp.send(["op": "connect", "applicationId": "someOtherApp"])
            let refused = try #require(try wrongApp.receive())
            #expect(Self.op(refused) == "error")
            #expect(refused["code"] as? Int == 4)
            #expect(refused["error"] as? String == "Key in request is not valid")
        }

        /// The SDKs' default URL is the server URL with `ws://`: the gateway hands the upgrade to live.
        @Test func theGatewayPortCarriesLiveQueries() async throws {
            let url = TestStack.serverURL.replacingOccurrences(of: "http://", with: "ws://")
            let client = try LiveQueryClient(url: url)
            #expect(client.opened)
            #expect(Self.op(try client.connect()) == "connected")
            let className = PostsHTTP.uniqueClass("LiveGateway")
            #expect(Self.op(try client.subscribe(1, className: className)) == "subscribed")
            // Idle for longer than the gateway's HTTP idle timeout: an upgraded connection is not dropped by it.
            try await Task.sleep(for: .seconds(12))
            let id = try await PostsHTTP.create(className, ["name": "via the gateway"])
            #expect(Self.object(try client.receive())["objectId"] as? String == id)
            try client.command("close")

            let raw = try LiveQueryClient(raw: true, url: url)
            try raw.command("bytes 810161")
            #expect(try raw.frame()["code"] as? Int == 1002)
        }

        @Test func sendsCreateUpdateLeaveEnterAndDelete() async throws {
            let className = PostsHTTP.uniqueClass("LiveOps")
            let client = try LiveQueryClient()
            try client.connect()
            let subscribed = try #require(try client.subscribe(1, className: className, where: ["score": ["$gte": 10]]))
            #expect(Self.op(subscribed) == "subscribed")
            #expect(subscribed["requestId"] as? Int == 1)

            // Not matching: nothing is sent.
            let low = try await PostsHTTP.create(className, ["name": "low", "score": 1])
            let id = try await PostsHTTP.create(className, ["name": "Tom", "score": 10])
            let created = try #require(try client.receive())
            #expect(Self.op(created) == "create")
            #expect(created["requestId"] as? Int == 1)
            #expect(Self.object(created)["objectId"] as? String == id)
            #expect(Self.object(created)["className"] as? String == className)
            #expect(Self.object(created)["name"] as? String == "Tom")
            #expect(created["original"] == nil)

            try await Self.update(className, id, ["score": 12])
            let updated = try #require(try client.receive())
            #expect(Self.op(updated) == "update")
            #expect(Self.object(updated)["score"] as? Int == 12)
            #expect(Self.original(updated)["score"] as? Int == 10)

            try await Self.update(className, id, ["score": 3])
            let left = try #require(try client.receive())
            #expect(Self.op(left) == "leave")
            #expect(Self.object(left)["score"] as? Int == 3)

            try await Self.update(className, low, ["score": 50])
            let entered = try #require(try client.receive())
            #expect(Self.op(entered) == "enter")
            #expect(Self.object(entered)["objectId"] as? String == low)
            #expect(Self.original(entered)["score"] as? Int == 1)

            let deleted = try await PostsHTTP.send("DELETE", "/classes/\(className)/\(low)", master: true)
            #expect(deleted.status == 200)
            let gone = try #require(try client.receive())
            #expect(Self.op(gone) == "delete")
            #expect(Self.object(gone)["objectId"] as? String == low)
            // The object that left the query is not the subscription's business any more.
            _ = try await PostsHTTP.send("DELETE", "/classes/\(className)/\(id)", master: true)
            #expect(try client.expectNothing() == nil)

            try client.send(["op": "unsubscribe", "requestId": 1])
            #expect(Self.op(try client.receive()) == "unsubscribed")
            _ = try await PostsHTTP.create(className, ["score": 99])
            #expect(try client.expectNothing() == nil)
        }

        @Test func keysLimitTheFieldsSent() async throws {
            let className = PostsHTTP.uniqueClass("LiveKeys")
            let client = try LiveQueryClient()
            try client.connect()
            try client.subscribe(7, className: className, keys: ["name"])
            let id = try await PostsHTTP.create(className, ["name": "Tom", "secret": "s", "score": 4])
            let object = Self.object(try client.receive())
            #expect(object["objectId"] as? String == id)
            #expect(object["name"] as? String == "Tom")
            #expect(object["createdAt"] != nil)
            #expect(object["secret"] == nil)
            #expect(object["score"] == nil)
        }

        /// parse-server 9's `watch`: creates and updates only when a watched field changes; the rest as before.
        @Test func watchSendsOnlyTheChangesOfItsFields() async throws {
            let className = PostsHTTP.uniqueClass("LiveWatch")
            let client = try LiveQueryClient()
            try client.connect()
            let subscribed = try #require(try client.subscribe(3, className: className, watch: ["score"]))
            #expect(Self.op(subscribed) == "subscribed")
            // A create without the watched field sends nothing.
            _ = try await PostsHTTP.create(className, ["name": "no score"])
            let id = try await PostsHTTP.create(className, ["name": "Tom", "score": 1])
            let created = try #require(try client.receive())
            #expect(Self.op(created) == "create" && Self.object(created)["objectId"] as? String == id)
            try await Self.update(className, id, ["name": "Tim"])
            try await Self.update(className, id, ["score": 2])
            // The name's update sent nothing: the next event is the score's.
            let updated = try #require(try client.receive())
            #expect(Self.op(updated) == "update")
            #expect(Self.object(updated)["score"] as? Int == 2 && Self.object(updated)["name"] as? String == "Tim")
            #expect(Self.original(updated)["score"] as? Int == 1)
            // A delete is sent whatever changed.
            #expect(try await PostsHTTP.send("DELETE", "/classes/\(className)/\(id)", master: true).status == 200)
            let deleted = try #require(try client.receive())
            #expect(Self.op(deleted) == "delete")
            #expect(try client.expectNothing() == nil)
        }

        @Test func aVoteArrivesAsAnUpdateWithTheNewTotal() async throws {
            let className = PostsHTTP.uniqueClass("LiveCat")
            let client = try LiveQueryClient()
            try client.connect()
            try client.subscribe(1, className: className)
            // Subscribed first and its create taken: a create event relayed after a later subscription would be
            // taken for the first vote's.
            let id = try await PostsHTTP.create(className, ["name": "Tom", "votes": 0])
            #expect(Self.op(try client.receive()) == "create")
            for expected in 1...3 {
                let vote = try await PostsHTTP.send("PUT", "/classes/\(className)/\(id)", ["votes": ["__op": "Increment", "amount": 1]])
                #expect(vote.status == 200)
                let message = try #require(try client.receive())
                #expect(Self.op(message) == "update")
                #expect(Self.object(message)["votes"] as? Int == expected)
                #expect(Self.object(message)["name"] as? String == "Tom")
                #expect(Self.original(message)["votes"] as? Int == expected - 1)
            }
        }

        @Test func ownerOnlyObjectsReachTheirOwnerOnly() async throws {
            let className = PostsHTTP.uniqueClass("LiveACL")
            let owner = try await AuthAPI.signUp("owner"), other = try await AuthAPI.signUp("other")
            let ownerClient = try LiveQueryClient(), otherClient = try LiveQueryClient(), anonymous = try LiveQueryClient()
            try ownerClient.connect(sessionToken: owner.token)
            try otherClient.connect(sessionToken: other.token)
            try anonymous.connect()
            for client in [ownerClient, otherClient, anonymous] { try client.subscribe(1, className: className) }

            let privateACL: [String: Any] = [owner.id: ["read": true, "write": true]]
            let id = try await PostsHTTP.create(className, ["name": "mine", "ACL": privateACL])
            #expect(Self.object(try ownerClient.receive())["objectId"] as? String == id)
            #expect(try otherClient.expectNothing() == nil)
            #expect(try anonymous.expectNothing() == nil)

            // Access gained: `enter` for the reader who can now see it; lost: `leave` for the one who cannot.
            try await Self.update(className, id, ["ACL": [other.id: ["read": true]]])
            let lost = try #require(try ownerClient.receive())
            #expect(Self.op(lost) == "leave")
            let gained = try #require(try otherClient.receive())
            #expect(Self.op(gained) == "enter")
            #expect(try anonymous.expectNothing() == nil)
        }

        @Test func roleMembersSeeWhatTheirRoleMayRead() async throws {
            let className = PostsHTTP.uniqueClass("LiveRole")
            let member = try await AuthAPI.signUp("member"), outsider = try await AuthAPI.signUp("outsider")
            let roleName = "Staff_\(UUID().uuidString.prefix(6))"
            let role = try await AuthAPI.send("POST", "/roles", [
                "name": roleName, "ACL": ["*": ["read": true]],
                "users": ["__op": "AddRelation", "objects": [PostsHTTP.pointer("_User", member.id)]],
            ], master: true)
            #expect(role.status == 201)
            let memberClient = try LiveQueryClient(), outsiderClient = try LiveQueryClient()
            try memberClient.connect(sessionToken: member.token)
            try outsiderClient.connect(sessionToken: outsider.token)
            try memberClient.subscribe(1, className: className)
            try outsiderClient.subscribe(1, className: className)
            let id = try await PostsHTTP.create(className, ["ACL": ["role:\(roleName)": ["read": true]]])
            #expect(Self.object(try memberClient.receive())["objectId"] as? String == id)
            #expect(try outsiderClient.expectNothing() == nil)
        }

        @Test func classPermissionsAndProtectedFieldsApply() async throws {
            let className = PostsHTTP.uniqueClass("LiveCLP")
            let schema = try await PostsHTTP.send("POST", "/schemas/\(className)", [
                "className": className,
                "fields": ["name": ["type": "String"], "secret": ["type": "String"]],
                "classLevelPermissions": [
                    "find": ["requiresAuthentication": true], "get": ["requiresAuthentication": true],
                    "create": ["*": true], "update": ["*": true], "delete": ["*": true], "count": ["*": true],
                    "addField": ["*": true], "protectedFields": ["*": ["secret"]],
                ],
            ], master: true)
            #expect(schema.status == 200, "\(schema.text)")
            let user = try await AuthAPI.signUp("clp")
            let member = try LiveQueryClient(), anonymous = try LiveQueryClient(), master = try LiveQueryClient()
            try member.connect(sessionToken: user.token)
            try anonymous.connect()
            try master.connect(masterKey: TestStack.masterKey)
            for client in [member, anonymous, master] { try client.subscribe(1, className: className) }

            let id = try await PostsHTTP.create(className, ["name": "Tom", "secret": "s3cret"], master: true)
            let seen = Self.object(try member.receive())
            #expect(seen["objectId"] as? String == id)
            #expect(seen["name"] as? String == "Tom")
            #expect(seen["secret"] == nil)
            #expect(Self.object(try master.receive())["secret"] as? String == "s3cret")
            // find requires a signed-in user.
            #expect(try anonymous.expectNothing() == nil)
        }

        @Test func aLoggedOutSessionStopsReceivingAtOnce() async throws {
            let className = PostsHTTP.uniqueClass("LiveLogout")
            let user = try await AuthAPI.signUp("leaver")
            let client = try LiveQueryClient()
            try client.connect(sessionToken: user.token)
            try client.subscribe(1, className: className)
            let privateACL: [String: Any] = [user.id: ["read": true, "write": true]]
            _ = try await PostsHTTP.create(className, ["n": 1, "ACL": privateACL])
            #expect(Self.op(try client.receive()) == "create")

            let logout = try await AuthAPI.send("POST", "/logout", [:], token: user.token)
            #expect(logout.status == 200)
            // The logout reaches live as auth's `session.revoked` event; a `_Session` subscription with the token,
            // which needs a valid session, is refused once it has.
            var refused = false
            for requestId in 100..<160 where !refused {
                let answer = try client.subscribe(requestId, className: "_Session", sessionToken: user.token)
                refused = answer?["code"] as? Int == 209
                if !refused { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(refused)
            _ = try await PostsHTTP.create(className, ["n": 2, "ACL": privateACL])
            #expect(try client.expectNothing(for: 3) == nil)
            // Public objects still arrive: the connection lives on with the public's access.
            let open = try await PostsHTTP.create(className, ["n": 3])
            #expect(Self.object(try client.receive())["objectId"] as? String == open)
        }

        @Test func answersBadMessagesAsParseServerDoesAndKeepsTheConnection() async throws {
            let client = try LiveQueryClient()
            try client.send(["op": "subscribe", "requestId": 1, "query": ["className": "Cat", "where": [:] as [String: Any]]])
            let early = try #require(try client.receive())
            #expect(early["op"] as? String == "error")
            #expect(early["code"] as? Int == 2)
            #expect(early["error"] as? String == "Can not find this client, make sure you connect to server before subscribing")
            #expect(early["reconnect"] as? Bool == true)
            #expect(early["requestId"] is NSNull)

            try client.send(["op": "dance"])
            #expect(try client.receive()?["error"] as? String == #"No enum match for: "dance""#)
            try client.send(["op": "subscribe", "query": ["className": "Cat", "where": [:] as [String: Any]]])
            let missing = try #require(try client.receive())
            #expect(missing["code"] as? Int == 1)
            #expect(missing["error"] as? String == "Missing required property: requestId")
            try client.send(text: "{not json")
            #expect(try client.receive()?["code"] as? Int == 1)

            try client.connect()
            let refused = try #require(try client.subscribe(3, className: "Cat", where: ["where": ["$nearSphere": [:] as [String: Any]]]))
            #expect(refused["op"] as? String == "error")
            #expect(refused["code"] as? Int == 102)
            #expect(refused["requestId"] as? Int == 3)
            #expect(refused["reconnect"] as? Bool == false)
            try client.send(["op": "unsubscribe", "requestId": 9])
            #expect(try client.receive()?["code"] as? Int == 2)
            // Still connected and working.
            #expect(Self.op(try client.subscribe(4, className: "Cat")) == "subscribed")
        }

        @Test func badFramesCloseThatConnectionOnly() async throws {
            let bystander = try LiveQueryClient()
            try bystander.connect()
            let className = PostsHTTP.uniqueClass("LiveFrames")
            try bystander.subscribe(1, className: className)

            let unmasked = try LiveQueryClient(raw: true)
            #expect(unmasked.opened)
            try unmasked.command("bytes 810161")
            let closed = try unmasked.frame()
            #expect(closed["opcode"] as? Int == 8)
            #expect(closed["code"] as? Int == 1002)

            let badText = try LiveQueryClient(raw: true)
            // A masked text frame whose payload is not UTF-8.
            try badText.command("bytes " + "81 82 00000000 c3 28".replacingOccurrences(of: " ", with: ""))
            #expect(try badText.frame()["code"] as? Int == 1007)

            let oversized = try LiveQueryClient(raw: true)
            // A binary frame announcing 2.6 GB: refused from its header.
            try oversized.command("bytes " + "82 ff 00000000a0000000 01020304".replacingOccurrences(of: " ", with: ""))
            #expect(try oversized.frame()["code"] as? Int == 1009)

            // The process and the other connection live on.
            let id = try await PostsHTTP.create(className, ["name": "still here"])
            #expect(Self.object(try bystander.receive())["objectId"] as? String == id)
            let fresh = try LiveQueryClient()
            #expect(Self.op(try fresh.connect()) == "connected")
        }

        @Test func aSlowClientIsDisconnectedWhileOthersKeepReceiving() async throws {
            let className = PostsHTTP.uniqueClass("LiveSlow")
            let id = try await PostsHTTP.create(className, ["n": 0])
            let slow = try LiveQueryClient(raw: true)
            try slow.command(#"send {"applicationId":"\#(TestStack.applicationId)","op":"connect"}"#)
            #expect((try slow.frame()["text"] as? String)?.contains("connected") == true)
            try slow.command(#"send {"op":"subscribe","query":{"className":"\#(className)","where":{}},"requestId":1}"#)
            #expect((try slow.frame()["text"] as? String)?.contains("subscribed") == true)
            let fast = try LiveQueryClient()
            try fast.connect()
            try fast.subscribe(1, className: className)

            // The slow client reads nothing while far more than its bound is sent to it.
            let padding = String(repeating: "x", count: 64_000)
            let rounds = 100
            for round in 1...rounds {
                try await Self.update(className, id, ["n": round, "padding": padding])
                let message = try #require(try fast.receive())
                #expect(Self.object(message)["n"] as? Int == round)
            }
            // Now it reads: what was queued before the bound, then the close (or the end, once the grace is over).
            var sawEnd = false
            var closeCode: Int?
            for _ in 0..<(rounds + 5) {
                let frame = try slow.frame(timeout: 10)
                if frame["eof"] != nil { sawEnd = true; break }
                if frame["opcode"] as? Int == 8 { closeCode = frame["code"] as? Int; sawEnd = true; break }
                #expect(frame["timeout"] == nil)
                if frame["timeout"] != nil { break }
            }
            #expect(sawEnd)
            if let closeCode { #expect(closeCode == 1013) }
            // The fast one is still served.
            try await Self.update(className, id, ["n": 0])
            #expect(Self.object(try fast.receive())["n"] as? Int == 0)
        }
    }
}
