import Foundation
import Testing

extension IntegrationSuite {
    /// `_Audience` through `/push_audiences` (master key) and `/classes/_Audience`, and a push's `audience_id`.
    @Suite struct PlatformAudiences {
        static func create(_ name: String, where constraint: [String: Any]) async throws -> String {
            let query = String(decoding: try JSONSerialization.data(withJSONObject: constraint), as: UTF8.self)
            let reply = try await PostsHTTP.send("POST", "/push_audiences", ["name": name, "query": query], master: true)
            guard reply.status == 201, let id = reply.json?["objectId"] as? String else {
                throw PostsTestError(description: "audience: \(reply.status) \(reply.text)")
            }
            return id
        }

        @Test func createReadUpdateDeleteWithTheQueryAsAnObject() async throws {
            let name = PostsHTTP.uniqueClass("Fans")
            let id = try await Self.create(name, where: ["deviceType": "ios"])
            let got = try #require(try await PostsHTTP.send("GET", "/push_audiences/\(id)", master: true).json)
            #expect(got["name"] as? String == name)
            #expect((got["query"] as? [String: String]) == ["deviceType": "ios"])
            let list = PostsHTTP.results(try await PostsHTTP.send("GET", "/push_audiences", master: true))
            #expect(list.contains { $0["objectId"] as? String == id && ($0["query"] as? [String: String])?["deviceType"] == "ios" })
            let update = try await PostsHTTP.send("PUT", "/push_audiences/\(id)", ["name": name + "2"], master: true)
            #expect(update.status == 200)
            #expect(try await PostsHTTP.send("GET", "/push_audiences/\(id)", master: true).json?["name"] as? String == name + "2")
            #expect(try await PostsHTTP.send("DELETE", "/push_audiences/\(id)", master: true).status == 200)
            #expect(try await PostsHTTP.send("GET", "/push_audiences/\(id)", master: true).status == 404)
        }

        @Test(arguments: ["GET /push_audiences", "GET /push_audiences/someId", "POST /push_audiences",
                          "PUT /push_audiences/someId", "DELETE /push_audiences/someId"])
        func everyRouteNeedsTheMasterKey(route: String) async throws {
            let parts = route.split(separator: " ").map(String.init)
            let reply = try await PostsHTTP.send(parts[0], parts[1], parts[0] == "POST" || parts[0] == "PUT" ? ["name": "x"] : nil)
            #expect(reply.status == 403)
            #expect(reply.text == #"{"error":"unauthorized: master key is required"}"#)
        }

        /// Audiences choose who gets a push: a client may add one (as parse-server's SDK suites do) but never change
        /// or delete one, whatever the class-level permissions say; its reads find nothing until a class-level
        /// permission opens them (parse-server leaves `_Audience` open to clients).
        @Test func clientsAddAudiencesButOnlyTheMasterKeyChangesOrReadsThem() async throws {
            let name = PostsHTTP.uniqueClass("Guarded")
            let created = try await PostsHTTP.send("POST", "/classes/_Audience",
                                                   ["name": name, "query": "{}", "ACL": ["*": ["read": true]]], master: true)
            #expect(created.status == 201)
            let id = try #require(created.json?["objectId"] as? String)
            let user = try await AuthAPI.signUp("audience")
            let headers = [(String?.none, "anonymous"), (user.token, "a user")]
            for (token, who) in headers {
                let session = token.map { ["X-Parse-Session-Token": $0] } ?? [:]
                for (method, path, body) in [("PUT", "/classes/_Audience/\(id)", ["name": "changed"]),
                                             ("DELETE", "/classes/_Audience/\(id)", [:])] as [(String, String, [String: String])] {
                    let reply = try await PostsHTTP.send(method, path, body, headers: session)
                    #expect(reply.status == 400 && reply.json?["code"] as? Int == 119, "\(who) \(method) \(path): \(reply.text)")
                }
                let added = try await PostsHTTP.send("POST", "/classes/_Audience", ["name": "\(name)-\(who)", "query": "{}"],
                                                     headers: session)
                #expect(added.status == 201, "\(who): \(added.text)")
                let get = try await PostsHTTP.send("GET", "/classes/_Audience/\(id)", headers: session)
                #expect(get.status == 404 && get.code == 101, "\(who): \(get.text)")
                let find = try await PostsHTTP.send("GET", "/classes/_Audience", query: ["count": "1"], headers: session)
                #expect(find.status == 200 && (find.json?["results"] as? [Any])?.isEmpty == true && find.json?["count"] as? Int == 0,
                        "\(who): \(find.text)")
            }
            let all = try await PostsHTTP.send("GET", "/classes/_Audience", master: true,
                                               query: ["where": #"{"name":{"$regex":"^\#(name)"}}"#])
            #expect((all.json?["results"] as? [Any])?.count == 3, "\(all.text)")
            // The master key opens reads to the public: reads follow the permission, writes stay the master key's.
            let opened = try await PostsHTTP.send("PUT", "/schemas/_Audience", ["classLevelPermissions": [
                "find": ["*": true], "get": ["*": true], "count": ["*": true], "create": ["*": true], "update": ["*": true],
                "delete": ["*": true], "addField": [:] as [String: Any],
            ]], master: true)
            #expect(opened.status == 200, "\(opened.text)")
            let read = try await PostsHTTP.send("GET", "/classes/_Audience/\(id)")
            #expect(read.json?["name"] as? String == name, "\(read.text)")
            let write = try await PostsHTTP.send("PUT", "/classes/_Audience/\(id)", ["name": "changed"])
            #expect(write.json?["code"] as? Int == 119)
            let unchanged = try await PostsHTTP.send("GET", "/classes/_Audience/\(id)", master: true)
            #expect(unchanged.json?["name"] as? String == name)
            _ = try await PostsHTTP.send("PUT", "/schemas/_Audience", ["classLevelPermissions": [:] as [String: Any]], master: true)
        }

        @Test func unknownFieldsAreRefused() async throws {
            let reply = try await PostsHTTP.send("POST", "/classes/_Audience", ["lorem": "ipsum"], master: true)
            #expect(reply.status == 400 && reply.code == 107)
            #expect(reply.error == "Could not add field lorem")
        }

        @Test func aPushWithTheAudienceCountsAUse() async throws {
            let id = try await Self.create(PostsHTTP.uniqueClass("Used"), where: ["deviceType": "nosuchtype"])
            let before = try #require(try await PostsHTTP.send("GET", "/push_audiences/\(id)", master: true).json)
            #expect(before["lastUsed"] == nil)
            let push = try await PostsHTTP.send("POST", "/push", ["where": ["deviceType": "nosuchtype"], "audience_id": id,
                                                                  "data": ["alert": "a"]], master: true)
            #expect(push.status == 200)
            let after = try #require(try await PostsHTTP.send("GET", "/push_audiences/\(id)", master: true).json)
            #expect(after["timesUsed"] as? Int == 1)
            #expect((after["lastUsed"] as? [String: Any])?["__type"] as? String == "Date")
        }
    }
}
