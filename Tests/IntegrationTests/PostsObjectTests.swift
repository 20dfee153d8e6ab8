import Foundation
import Testing

extension IntegrationSuite {
    @Suite struct PostsObjects {
        @Test func createAnswers201WithLocationAndExactlyIdAndDate() async throws {
            let cat = PostsHTTP.uniqueClass("Cat")
            let reply = try await PostsHTTP.send("POST", "/classes/\(cat)", ["name": "Tom", "votes": 0])
            #expect(reply.status == 201)
            let json = try #require(reply.json)
            #expect(Set(json.keys) == ["objectId", "createdAt"])
            let id = try #require(json["objectId"] as? String)
            #expect(id.count == 10 && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
            #expect(reply.header("Location") == "\(TestStack.serverURL)/classes/\(cat)/\(id)")
            let created = try #require(json["createdAt"] as? String)
            #expect(created.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil)
        }

        @Test func everyParseTypeRoundTrips() async throws {
            let cls = PostsHTTP.uniqueClass("Types")
            let target = try await PostsHTTP.create(cls + "T", ["x": 1])
            let fields: [String: Any] = [
                "string": "héllo \"quoted\" 'single'", "number": 3.25, "integer": 42, "boolean": true,
                "date": ["__type": "Date", "iso": "2024-05-01T12:30:45.123Z"],
                "object": ["nested": ["a": 1, "b": [true, "x"]]], "array": [1, "two", ["three": 3]],
                "pointer": PostsHTTP.pointer(cls + "T", target),
                "file": ["__type": "File", "name": "abc_photo.png", "url": "http://elsewhere/ignored"],
                "geo": ["__type": "GeoPoint", "latitude": 40.5, "longitude": -30.25],
                "bytes": ["__type": "Bytes", "base64": "ZnJveW8="],
                "nothing": NSNull(),
                "ACL": ["*": ["read": true], "someUser": ["read": true, "write": true]],
            ]
            let id = try await PostsHTTP.create(cls, fields)
            let reply = try await PostsHTTP.send("GET", "/classes/\(cls)/\(id)")
            #expect(reply.status == 200)
            let object = try #require(reply.json)
            #expect(object["string"] as? String == "héllo \"quoted\" 'single'")
            #expect(object["number"] as? Double == 3.25)
            #expect(object["integer"] as? Int == 42)
            #expect(object["boolean"] as? Bool == true)
            #expect(object["date"] as? [String: String] == ["__type": "Date", "iso": "2024-05-01T12:30:45.123Z"])
            let nested = try #require((object["object"] as? [String: Any])?["nested"] as? [String: Any])
            #expect(nested["a"] as? Int == 1)
            #expect((object["array"] as? [Any])?.count == 3)
            #expect(object["pointer"] as? [String: String] == ["__type": "Pointer", "className": cls + "T", "objectId": target])
            #expect(object["file"] as? [String: String] == ["__type": "File", "name": "abc_photo.png",
                                                            "url": "\(TestStack.serverURL)/files/\(TestStack.applicationId)/abc_photo.png"])
            let geo = try #require(object["geo"] as? [String: Any])
            #expect(geo["latitude"] as? Double == 40.5 && geo["longitude"] as? Double == -30.25)
            #expect(object["bytes"] as? [String: String] == ["__type": "Bytes", "base64": "ZnJveW8="])
            #expect(object["nothing"] == nil)
            let acl = try #require(object["ACL"] as? [String: [String: Bool]])
            #expect(acl == ["*": ["read": true], "someUser": ["read": true, "write": true]])
            #expect(object["objectId"] as? String == id)
            #expect(object["createdAt"] as? String == object["updatedAt"] as? String)
        }

        @Test func updateEchoesOperatorResultsOnly() async throws {
            let cls = PostsHTTP.uniqueClass("Post")
            let id = try await PostsHTTP.create(cls, ["title": "a", "tags": ["x", "y", "x"], "votes": 1, "gone": "bye"])
            let reply = try await PostsHTTP.send("PUT", "/classes/\(cls)/\(id)", [
                "title": "b",
                "votes": ["__op": "Increment", "amount": 2],
                "added": ["__op": "Add", "objects": ["1", "2"]],
                "tags": ["__op": "AddUnique", "objects": ["x", "z", "z"]],
                "removed": ["__op": "Remove", "objects": ["q"]],
                "gone": ["__op": "Delete"],
            ])
            #expect(reply.status == 200)
            let json = try #require(reply.json)
            #expect(Set(json.keys) == ["updatedAt", "votes", "added", "tags", "removed"])
            #expect(json["votes"] as? Int == 3)
            #expect(json["added"] as? [String] == ["1", "2"])
            #expect(json["tags"] as? [String] == ["x", "y", "x", "z"])
            #expect(json["removed"] as? [String] == [])
            let after = try #require(try await PostsHTTP.send("GET", "/classes/\(cls)/\(id)").json)
            #expect(after["title"] as? String == "b")
            #expect(after["gone"] == nil)
            #expect(after["updatedAt"] as? String == json["updatedAt"] as? String)

            let removal = try await PostsHTTP.send("PUT", "/classes/\(cls)/\(id)", ["tags": ["__op": "Remove", "objects": ["x"]]])
            #expect(removal.json?["tags"] as? [String] == ["y", "z"])
        }

        @Test func incrementTwiceAnswersTheNewValue() async throws {
            let cls = PostsHTTP.uniqueClass("Post")
            let id = try await PostsHTTP.create(cls, ["title": "a"])
            _ = try await PostsHTTP.send("PUT", "/classes/\(cls)/\(id)", ["votes": ["__op": "Increment", "amount": 1]])
            let second = try await PostsHTTP.send("PUT", "/classes/\(cls)/\(id)", ["votes": ["__op": "Increment", "amount": 1]])
            #expect(second.json?["votes"] as? Int == 2)
            #expect(Set(second.json?.keys.map { $0 } ?? []) == ["votes", "updatedAt"])
        }

        @Test func operatorsOnCreateAreAppliedToNothingAndEchoed() async throws {
            let cls = PostsHTTP.uniqueClass("Post")
            let reply = try await PostsHTTP.send("POST", "/classes/\(cls)", [
                "votes": ["__op": "Increment", "amount": 3], "tags": ["__op": "AddUnique", "objects": ["a", "a", "b"]],
                "gone": ["__op": "Delete"], "title": "t",
            ])
            #expect(reply.status == 201)
            let json = try #require(reply.json)
            #expect(Set(json.keys) == ["objectId", "createdAt", "votes", "tags"])
            #expect(json["votes"] as? Int == 3)
            #expect(json["tags"] as? [String] == ["a", "b"])
        }

        @Test func concurrentIncrementsAreAtomic() async throws {
            let cls = PostsHTTP.uniqueClass("Counter")
            let id = try await PostsHTTP.create(cls, ["votes": 0])
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<40 {
                    group.addTask {
                        try await PostsHTTP.send("PUT", "/classes/\(cls)/\(id)", ["votes": ["__op": "Increment", "amount": 1]]).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 200 })
            let after = try await PostsHTTP.send("GET", "/classes/\(cls)/\(id)")
            #expect(after.json?["votes"] as? Int == 40)
        }

        @Test func deleteAnswersEmptyThenTheObjectIsGone() async throws {
            let cls = PostsHTTP.uniqueClass("Post")
            let id = try await PostsHTTP.create(cls, ["title": "a"])
            let reply = try await PostsHTTP.send("DELETE", "/classes/\(cls)/\(id)")
            #expect(reply.status == 200)
            #expect(reply.text == "{}")
            for method in ["GET", "PUT", "DELETE"] {
                let missing = try await PostsHTTP.send(method, "/classes/\(cls)/\(id)", method == "PUT" ? ["a": 1] : nil)
                #expect(missing.status == 404, "\(method)")
                #expect(missing.text == #"{"code":101,"error":"Object not found."}"#, "\(method)")
            }
        }

        @Test func aFieldTypeIsFixedByItsFirstWrite() async throws {
            let cls = PostsHTTP.uniqueClass("Typed")
            let id = try await PostsHTTP.create(cls, ["votes": 1])
            let reply = try await PostsHTTP.send("POST", "/classes/\(cls)", ["votes": "many"])
            #expect(reply.status == 400)
            #expect(reply.text == #"{"code":111,"error":"schema mismatch for \#(cls).votes; expected Number but got String"}"#)
            let update = try await PostsHTTP.send("PUT", "/classes/\(cls)/\(id)", ["votes": ["__op": "Add", "objects": [1]]])
            #expect(update.code == 111)
            let pointer = try await PostsHTTP.send("POST", "/classes/\(cls)", ["owner": PostsHTTP.pointer("A", "x")])
            #expect(pointer.status == 201)
            let otherPointer = try await PostsHTTP.send("POST", "/classes/\(cls)", ["owner": PostsHTTP.pointer("B", "x")])
            #expect(otherPointer.error == "schema mismatch for \(cls).owner; expected Pointer<A> but got Pointer<B>")
        }

        @Test func badWritesAreClearParseErrors() async throws {
            let cls = PostsHTTP.uniqueClass("Bad")
            let cases: [(String, String, Any, Int, String?)] = [
                ("POST", "/classes/\(cls)", ["objectId": "abc"], 105, "objectId is an invalid field name."),
                ("POST", "/classes/\(cls)", ["id": "abc"], 105, "id is an invalid field name."),
                ("POST", "/classes/\(cls)", ["bad-name": 1], 105, "Invalid field name: bad-name."),
                ("POST", "/classes/\(cls)", ["x\"; DROP TABLE outbox; --": 1], 105, nil),
                ("POST", "/classes/\(cls)", ["obj": ["a.b": 1]], 121, "Nested keys should not contain the '$' or '.' characters"),
                ("POST", "/classes/\(cls)", ["ACL": ["*": ["read": "yes"]]], 123, "Invalid ACL."),
                ("POST", "/classes/\(cls)", ["when": ["__type": "Date", "iso": "yesterday"]], 111, "This is not a valid Date"),
                ("POST", "/classes/\(cls)", ["geo": ["__type": "GeoPoint", "latitude": 100, "longitude": 0]], 111, nil),
                ("POST", "/classes/\(cls)", ["n": ["__op": "Increment", "amount": "x"]], 107, nil),
                ("POST", "/classes/\(cls)", ["n": ["__op": "Explode"]], 107, nil),
                ("POST", "/classes/1Bad", ["a": 1], 103, nil),
                ("POST", "/classes/Bad%22%3B%20DROP%20TABLE%20outbox%3B--", ["a": 1], 103, nil),
                ("POST", "/classes/\(cls)", "[1,2]", 107, nil),
            ]
            for (method, path, body, code, message) in cases {
                let reply = try await PostsHTTP.send(method, path, body)
                #expect(reply.status == 400, "\(path) \(body): \(reply.text)")
                #expect(reply.code == code, "\(path) \(body): \(reply.text)")
                if let message { #expect(reply.error == message, "\(body)") }
            }
            // Nothing above created the class's table contents.
            let listed = try await PostsHTTP.find(cls, [:])
            #expect(PostsHTTP.results(listed).isEmpty)
        }

        @Test func valuesThatLookLikeSQLAreStoredAsText() async throws {
            let cls = PostsHTTP.uniqueClass("Inject")
            let evil = "'); DROP TABLE outbox; --"
            let id = try await PostsHTTP.create(cls, ["name": evil])
            let reply = try await PostsHTTP.send("GET", "/classes/\(cls)/\(id)")
            #expect(reply.json?["name"] as? String == evil)
            let found = try await PostsHTTP.find(cls, ["where": ["name": evil]])
            #expect(PostsHTTP.results(found).count == 1)
        }

        @Test func relationsAddAndRemoveMembers() async throws {
            let cls = PostsHTTP.uniqueClass("Album")
            let photos = PostsHTTP.uniqueClass("Photo")
            let first = try await PostsHTTP.create(photos, ["n": 1])
            let second = try await PostsHTTP.create(photos, ["n": 2])
            let album = try await PostsHTTP.create(cls, ["photos": ["__op": "AddRelation", "objects": [
                PostsHTTP.pointer(photos, first), PostsHTTP.pointer(photos, second)]]])
            let read = try await PostsHTTP.send("GET", "/classes/\(cls)/\(album)")
            #expect(read.json?["photos"] as? [String: String] == ["__type": "Relation", "className": photos])
            let related: [String: Any] = ["$relatedTo": ["object": PostsHTTP.pointer(cls, album), "key": "photos"]]
            #expect(PostsHTTP.results(try await PostsHTTP.find(photos, ["where": related])).count == 2)
            let update = try await PostsHTTP.send("PUT", "/classes/\(cls)/\(album)", [
                "photos": ["__op": "RemoveRelation", "objects": [PostsHTTP.pointer(photos, first)]]])
            #expect(update.status == 200)
            let left = PostsHTTP.results(try await PostsHTTP.find(photos, ["where": related]))
            #expect(left.map { $0["objectId"] as? String } == [second])
        }

        @Test func getAcceptsOnlyItsOwnParameters() async throws {
            let cls = PostsHTTP.uniqueClass("Post")
            let id = try await PostsHTTP.create(cls, ["title": "a", "body": "b"])
            let keys = try await PostsHTTP.send("GET", "/classes/\(cls)/\(id)", query: ["keys": "title"])
            #expect(keys.json?["title"] as? String == "a")
            #expect(keys.json?["body"] == nil)
            let bad = try await PostsHTTP.send("GET", "/classes/\(cls)/\(id)", query: ["where": "{}"])
            #expect(bad.text == #"{"code":102,"error":"Improper encode of parameter"}"#)
        }
    }
}
