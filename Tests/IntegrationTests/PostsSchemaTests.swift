import Foundation
import Testing

extension IntegrationSuite {
    @Suite struct PostsSchemas {
        @Test func aClassGrowsWithItsWritesAndShowsInSchemas() async throws {
            let cls = PostsHTTP.uniqueClass("Grown")
            _ = try await PostsHTTP.create(cls, ["name": "a", "votes": 1, "owner": PostsHTTP.pointer("Person", "x")])
            let reply = try await PostsHTTP.send("GET", "/schemas/\(cls)", master: true)
            #expect(reply.status == 200)
            let fields = try #require(reply.json?["fields"] as? [String: [String: String]])
            #expect(fields["name"] == ["type": "String"])
            #expect(fields["votes"] == ["type": "Number"])
            #expect(fields["owner"] == ["type": "Pointer", "targetClass": "Person"])
            #expect(fields["objectId"] == ["type": "String"] && fields["ACL"] == ["type": "ACL"])
            let permissions = try #require(reply.json?["classLevelPermissions"] as? [String: Any])
            #expect((permissions["find"] as? [String: Bool]) == ["*": true])
            let all = try await PostsHTTP.send("GET", "/schemas", master: true)
            let names = ((all.json?["results"] as? [[String: Any]]) ?? []).compactMap { $0["className"] as? String }
            #expect(names.contains(cls))
        }

        @Test func createChangeAndDropAClass() async throws {
            let cls = PostsHTTP.uniqueClass("Managed")
            let created = try await PostsHTTP.send("POST", "/schemas", [
                "className": cls, "fields": ["score": ["type": "Number"], "team": ["type": "Pointer", "targetClass": "Team"]],
                "indexes": ["score_1": ["score": 1]],
            ], master: true)
            #expect(created.status == 200, "\(created.text)")
            #expect((created.json?["indexes"] as? [String: Any])?["score_1"] != nil)
            let again = try await PostsHTTP.send("POST", "/schemas/\(cls)", [:], master: true)
            #expect(again.text == #"{"code":103,"error":"Class \#(cls) already exists."}"#)
            let mismatch = try await PostsHTTP.send("POST", "/schemas/\(cls)", ["className": "Other"], master: true)
            #expect(mismatch.text == #"{"code":103,"error":"Class name mismatch between Other and \#(cls)."}"#)

            let badType = try await PostsHTTP.send("PUT", "/schemas/\(cls)", ["fields": ["x": ["type": "Blob"]]], master: true)
            #expect(badType.text == #"{"code":111,"error":"invalid field type: Blob"}"#)
            let noTarget = try await PostsHTTP.send("PUT", "/schemas/\(cls)", ["fields": ["x": ["type": "Pointer"]]], master: true)
            #expect(noTarget.text == #"{"code":135,"error":"type Pointer needs a class name"}"#)
            let exists = try await PostsHTTP.send("PUT", "/schemas/\(cls)", ["fields": ["score": ["type": "Number"]]], master: true)
            #expect(exists.text == #"{"code":255,"error":"Field score exists, cannot update."}"#)
            let missing = try await PostsHTTP.send("PUT", "/schemas/\(cls)", ["fields": ["nope": ["__op": "Delete"]]], master: true)
            #expect(missing.text == #"{"code":255,"error":"Field nope does not exist, cannot delete."}"#)
            let indexAgain = try await PostsHTTP.send("PUT", "/schemas/\(cls)", ["indexes": ["score_1": ["score": 1]]], master: true)
            #expect(indexAgain.text == #"{"code":102,"error":"Index score_1 exists, cannot update."}"#)
            let noIndex = try await PostsHTTP.send("PUT", "/schemas/\(cls)", ["indexes": ["nope": ["__op": "Delete"]]], master: true)
            #expect(noIndex.text == #"{"code":102,"error":"Index nope does not exist, cannot delete."}"#)
            // As parse-server on PostgreSQL: the primary key's `_id_` stays once the class's own index is gone.
            let dropIndex = try await PostsHTTP.send("PUT", "/schemas/\(cls)", ["indexes": ["score_1": ["__op": "Delete"]]], master: true)
            #expect((dropIndex.json?["indexes"] as? [String: [String: Int]]) == ["_id_": ["_id": 1]])
            let dropField = try await PostsHTTP.send("PUT", "/schemas/\(cls)", ["fields": ["team": ["__op": "Delete"]]], master: true)
            #expect((dropField.json?["fields"] as? [String: Any])?["team"] == nil)

            let id = try await PostsHTTP.create(cls, ["score": 1])
            let notEmpty = try await PostsHTTP.send("DELETE", "/schemas/\(cls)", master: true)
            #expect(notEmpty.text == #"{"code":255,"error":"Class \#(cls) is not empty, contains 1 objects, cannot drop schema."}"#)
            #expect(try await PostsHTTP.send("DELETE", "/classes/\(cls)/\(id)").status == 200)
            #expect(try await PostsHTTP.send("DELETE", "/schemas/\(cls)", master: true).text == "{}")
            let gone = try await PostsHTTP.send("GET", "/schemas/\(cls)", master: true)
            #expect(gone.text == #"{"code":103,"error":"Class \#(cls) does not exist."}"#)
        }

        @Test func purgeEmptiesAClass() async throws {
            let cls = PostsHTTP.uniqueClass("Purged")
            _ = try await PostsHTTP.create(cls, ["n": 1])
            _ = try await PostsHTTP.create(cls, ["n": 2])
            #expect(try await PostsHTTP.send("DELETE", "/purge/\(cls)", master: true).text == "{}")
            #expect(PostsHTTP.results(try await PostsHTTP.find(cls, [:])).isEmpty)
        }
    }
}
