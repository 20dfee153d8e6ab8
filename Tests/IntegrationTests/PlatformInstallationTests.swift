import Foundation
import Testing

extension IntegrationSuite {
    /// `/installations` and `/classes/_Installation` with parse-server's installation rules.
    @Suite struct PlatformInstallations {
        static func newId() -> String { UUID().uuidString }

        static func send(_ method: String, _ path: String, _ body: Any? = nil, master: Bool = false,
                         installationId: String? = nil) async throws -> Reply {
            var headers = HTTP.appHeaders
            if master { headers["X-Parse-Master-Key"] = TestStack.masterKey }
            if let installationId { headers["X-Parse-Installation-Id"] = installationId }
            headers["Content-Type"] = "application/json"
            let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
            return try await HTTP.send(method, path, headers: headers, body: data)
        }

        static func create(_ fields: [String: Any]) async throws -> String {
            let reply = try await send("POST", "/installations", fields)
            guard reply.status == 201, let id = reply.json?["objectId"] as? String else {
                throw PostsTestError(description: "create failed: \(reply.status) \(reply.text)")
            }
            return id
        }

        static func find(_ constraint: [String: Any]) async throws -> [[String: Any]] {
            PostsHTTP.results(try await PostsHTTP.find("_Installation", ["where": constraint], master: true))
        }

        @Test func createAnswers201AndGetReturnsTheRow() async throws {
            let installationId = Self.newId()
            let reply = try await Self.send("POST", "/installations", [
                "installationId": installationId, "deviceType": "ios", "channels": ["news"], "badge": 2,
            ])
            #expect(reply.status == 201)
            let id = try #require(reply.json?["objectId"] as? String)
            #expect(reply.header("Location") == "\(TestStack.serverURL)/classes/_Installation/\(id)")
            let row = try #require(try await Self.send("GET", "/installations/\(id)").json)
            #expect(row["installationId"] as? String == installationId.lowercased())
            #expect(row["deviceType"] as? String == "ios")
            #expect(row["channels"] as? [String] == ["news"])
            let viaClasses = try await Self.send("GET", "/classes/_Installation/\(id)")
            #expect(viaClasses.json?["objectId"] as? String == id)
        }

        @Test func aCreateNeedsAnIdFieldAndADeviceType() async throws {
            let none = try await Self.send("POST", "/installations", ["deviceType": "android"])
            #expect(none.status == 400 && none.code == 135)
            #expect(none.error == "at least one ID field (deviceToken, installationId) must be specified in this operation")
            let token = "token-" + Self.newId()
            let noType = try await Self.send("POST", "/classes/_Installation", ["deviceToken": token])
            #expect(noType.status == 400 && noType.code == 135)
            #expect(noType.error == "deviceType must be specified in this operation")
            #expect(try await Self.find(["deviceToken": token]).isEmpty)
        }

        @Test func deviceTypeCannotChange() async throws {
            let id = try await Self.create(["installationId": Self.newId(), "deviceType": "android"])
            let reply = try await Self.send("PUT", "/installations/\(id)", ["deviceType": "ios"])
            #expect(reply.status == 400 && reply.code == 136)
            #expect(reply.error == "deviceType may not be changed in this operation")
            let row = try await Self.send("GET", "/installations/\(id)")
            #expect(row.json?["deviceType"] as? String == "android")
        }

        @Test func installationIdCannotChange() async throws {
            let first = Self.newId()
            let id = try await Self.create(["installationId": first, "deviceType": "android"])
            let reply = try await Self.send("PUT", "/installations/\(id)", ["installationId": Self.newId()])
            #expect(reply.status == 400 && reply.code == 136)
            #expect(reply.error == "installationId may not be changed in this operation")
        }

        @Test func aSecondCreateForTheSameInstallationIdUpdatesTheRow() async throws {
            let installationId = Self.newId()
            let id = try await Self.create(["installationId": installationId, "deviceType": "ios", "appVersion": "1"])
            let again = try await Self.send("POST", "/installations", [
                "installationId": installationId.lowercased(), "deviceType": "ios", "appVersion": "2",
            ])
            #expect(again.status == 200)
            #expect(again.json?["updatedAt"] != nil)
            let rows = try await Self.find(["installationId": installationId.lowercased()])
            #expect(rows.count == 1)
            #expect(rows.first?["objectId"] as? String == id)
            #expect(rows.first?["appVersion"] as? String == "2")
        }

        @Test func theHeaderInstallationIdFindsTheDevicesRow() async throws {
            let installationId = Self.newId().lowercased()
            let id = try await Self.create(["installationId": installationId, "deviceType": "android"])
            let reply = try await Self.send("POST", "/classes/_Installation", ["timeZone": "Europe/Paris"],
                                            installationId: installationId)
            #expect(reply.status == 200)
            let row = try await Self.send("GET", "/installations/\(id)")
            #expect(row.json?["timeZone"] as? String == "Europe/Paris")
        }

        @Test func aDeviceTokenRowIsMergedIntoByItsInstallation() async throws {
            let token = String(repeating: "AB", count: 32)   // 64 characters: an APNs token, kept in lower case
            let tokenRow = try await Self.create(["deviceToken": token + "", "deviceType": "ios"])
            let stored = try await Self.send("GET", "/installations/\(tokenRow)")
            #expect(stored.json?["deviceToken"] as? String == token.lowercased())
            let installationId = Self.newId()
            let reply = try await Self.send("POST", "/installations", [
                "deviceToken": token, "installationId": installationId, "deviceType": "ios",
            ])
            #expect(reply.status == 200)
            let rows = try await Self.find(["deviceToken": token.lowercased()])
            #expect(rows.count == 1)
            #expect(rows.first?["objectId"] as? String == tokenRow)
            #expect(rows.first?["installationId"] as? String == installationId.lowercased())
        }

        @Test func aTokenMovingToAnotherInstallationLeavesTheOldRow() async throws {
            let token = "token-" + Self.newId()
            let old = try await Self.create(["deviceToken": token, "installationId": Self.newId(), "deviceType": "android"])
            let fresh = try await Self.send("POST", "/installations", [
                "deviceToken": token, "installationId": Self.newId(), "deviceType": "android",
            ])
            #expect(fresh.status == 201)
            let rows = try await Self.find(["deviceToken": token])
            #expect(rows.map { $0["objectId"] as? String } == [fresh.json?["objectId"] as? String])
            #expect(try await Self.send("GET", "/installations/\(old)", master: true).status == 404)
        }

        @Test func channelsAndBadgeTakeTheirOperators() async throws {
            let id = try await Self.create(["installationId": Self.newId(), "deviceType": "ios", "channels": ["a"], "badge": 1])
            let add = try await Self.send("PUT", "/installations/\(id)", ["channels": ["__op": "AddUnique", "objects": ["a", "b"]]])
            #expect(add.status == 200)
            #expect(add.json?["channels"] as? [String] == ["a", "b"])
            _ = try await Self.send("PUT", "/installations/\(id)", ["channels": ["__op": "Remove", "objects": ["a"]]])
            _ = try await Self.send("PUT", "/installations/\(id)", ["channels": ["__op": "Add", "objects": ["c"]]])
            let badge = try await Self.send("PUT", "/installations/\(id)", ["badge": ["__op": "Increment", "amount": 2]])
            #expect(badge.json?["badge"] as? Int == 3)
            let row = try #require(try await Self.send("GET", "/installations/\(id)").json)
            #expect(row["channels"] as? [String] == ["b", "c"])
            #expect(row["badge"] as? Int == 3)
        }

        @Test func queriesAndDeletesNeedTheMasterKey() async throws {
            let id = try await Self.create(["installationId": Self.newId(), "deviceType": "android"])
            let query = try await Self.send("GET", "/installations")
            #expect(query.status == 400 && query.code == 119)
            #expect(query.error == "Clients aren't allowed to perform the find operation on the installation collection.")
            let classes = try await Self.send("GET", "/classes/_Installation")
            #expect(classes.code == 119)
            let delete = try await Self.send("DELETE", "/installations/\(id)")
            #expect(delete.status == 400 && delete.code == 119)
            #expect(delete.error == "Clients aren't allowed to perform the delete operation on the installation collection.")
            #expect(try await Self.send("GET", "/installations/\(id)").status == 200)
            let masterQuery = try await Self.send("GET", "/installations", master: true)
            #expect(PostsHTTP.results(masterQuery).contains { $0["objectId"] as? String == id })
            #expect(try await Self.send("DELETE", "/installations/\(id)", master: true).status == 200)
            #expect(try await Self.send("GET", "/installations/\(id)", master: true).status == 404)
        }

        @Test func anACLKeepsOthersOut() async throws {
            let id = try await Self.create(["installationId": Self.newId(), "deviceType": "android", "ACL": [:] as [String: Any]])
            #expect(try await Self.send("GET", "/installations/\(id)").status == 404)
            let update = try await Self.send("PUT", "/installations/\(id)", ["appName": "x"])
            #expect(update.status == 404 && update.code == 101)
            #expect(try await Self.send("GET", "/installations/\(id)", master: true).json?["appName"] == nil)
        }

        @Test func aWrongTypeForADefaultFieldIsRefused() async throws {
            let installationId = Self.newId()
            let reply = try await Self.send("POST", "/installations", [
                "installationId": installationId, "deviceType": "ios", "badge": "many",
            ])
            #expect(reply.status == 400 && reply.code == 111)
            #expect(try await Self.find(["installationId": installationId.lowercased()]).isEmpty)
        }

        @Test func anUnknownObjectIdIsNotFound() async throws {
            let reply = try await Self.send("PUT", "/installations/nosuchrow1", ["deviceType": "ios"])
            #expect(reply.status == 404 && reply.code == 101)
            #expect(reply.error == "Object not found for update.")
        }
    }
}
