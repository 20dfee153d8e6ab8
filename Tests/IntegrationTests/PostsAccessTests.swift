import Foundation
import Testing

extension IntegrationSuite {
    @Suite struct PostsAccess {
        @Test func unreadableObjectsAreInvisibleAndUnwritableOnesAnswer101() async throws {
            let cls = PostsHTTP.uniqueClass("Private")
            let masterOnly = try await PostsHTTP.create(cls, ["n": 1, "ACL": [:]], master: true)
            let readOnly = try await PostsHTTP.create(cls, ["n": 2, "ACL": ["*": ["read": true]]], master: true)
            let open = try await PostsHTTP.create(cls, ["n": 3])
            let notFound = #"{"code":101,"error":"Object not found."}"#

            let hidden = try await PostsHTTP.send("GET", "/classes/\(cls)/\(masterOnly)")
            #expect(hidden.status == 404 && hidden.text == notFound)
            let listed = PostsHTTP.results(try await PostsHTTP.find(cls, ["order": "n", "count": 1]))
            #expect(listed.compactMap { $0["objectId"] as? String } == [readOnly, open])
            #expect(try await PostsHTTP.find(cls, ["count": 1, "limit": 0]).json?["count"] as? Int == 2)

            for id in [masterOnly, readOnly] {
                let update = try await PostsHTTP.send("PUT", "/classes/\(cls)/\(id)", ["n": 9])
                #expect(update.status == 404 && update.text == notFound)
                let delete = try await PostsHTTP.send("DELETE", "/classes/\(cls)/\(id)")
                #expect(delete.status == 404 && delete.text == notFound)
            }
            #expect(try await PostsHTTP.send("PUT", "/classes/\(cls)/\(open)", ["n": 4]).status == 200)

            // The master key sees and changes everything.
            #expect(try await PostsHTTP.send("GET", "/classes/\(cls)/\(masterOnly)", master: true).json?["n"] as? Int == 1)
            #expect(try await PostsHTTP.send("PUT", "/classes/\(cls)/\(masterOnly)", ["n": 5], master: true).status == 200)
            #expect(PostsHTTP.results(try await PostsHTTP.find(cls, [:], master: true)).count == 3)
        }

        @Test func classLevelPermissionsRefuseWithCode119() async throws {
            let cls = PostsHTTP.uniqueClass("Locked")
            let made = try await PostsHTTP.send("POST", "/schemas/\(cls)", [
                "fields": ["title": ["type": "String"]],
                "classLevelPermissions": ["find": [:], "create": [:], "get": ["*": true], "update": ["requiresAuthentication": true]],
            ], master: true)
            #expect(made.status == 200, "\(made.text)")
            let id = try await PostsHTTP.create(cls, ["title": "a"], master: true)

            let find = try await PostsHTTP.find(cls, [:])
            #expect(find.text == #"{"code":119,"error":"Permission denied for action find on class \#(cls)."}"#)
            let create = try await PostsHTTP.send("POST", "/classes/\(cls)", ["title": "b"])
            #expect(create.text == #"{"code":119,"error":"Permission denied for action create on class \#(cls)."}"#)
            #expect(try await PostsHTTP.send("GET", "/classes/\(cls)/\(id)").status == 200)
            let update = try await PostsHTTP.send("PUT", "/classes/\(cls)/\(id)", ["title": "c"])
            #expect(update.status == 404)
            #expect(update.text == #"{"code":101,"error":"Permission denied, user needs to be authenticated."}"#)
            // A subquery on the class needs its find permission too.
            let referring = PostsHTTP.uniqueClass("Ref")
            _ = try await PostsHTTP.create(referring, ["locked": PostsHTTP.pointer(cls, id)])
            let subquery = try await PostsHTTP.find(referring, ["where": ["locked": ["$inQuery": ["className": cls, "where": [:]]]]])
            #expect(subquery.code == 119)
            #expect(try await PostsHTTP.send("DELETE", "/classes/\(cls)/\(id)").status == 200)
        }

        @Test func schemasNeedTheMasterKey() async throws {
            for (method, path) in [("GET", "/schemas"), ("GET", "/schemas/Cat"), ("POST", "/schemas/Cat"), ("PUT", "/schemas/Cat"),
                                   ("DELETE", "/schemas/Cat"), ("DELETE", "/purge/Cat")] {
                let reply = try await PostsHTTP.send(method, path, method == "GET" || method == "DELETE" ? nil : [:])
                #expect(reply.status == 403, "\(method) \(path)")
                #expect(reply.text == #"{"error":"unauthorized: master key is required"}"#)
            }
        }
    }
}
