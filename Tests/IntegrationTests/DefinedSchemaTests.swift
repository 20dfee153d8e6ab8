import Foundation
import Testing

extension IntegrationSuite {
    /// parse-server's `schema` option (`PARSE_SERVER_SCHEMA_*`): posts restarted with definitions, then as before.
    @Suite struct DefinedSchemas {
        private func withDefinitions(_ definitions: [[String: Any]], _ extra: [String: String] = [:],
                                     _ body: () async throws -> Void) async throws {
            let text = String(decoding: try JSONSerialization.data(withJSONObject: definitions), as: UTF8.self)
            try TestStack.control(["stop-service", "posts"])
            try TestStack.control(["start-service", "posts"],
                                  settings: ["PARSE_SERVER_SCHEMA_DEFINITIONS": text].merging(extra) { $1 })
            try await TestStack.run(body, thenAlways: {
                try TestStack.control(["stop-service", "posts"])
                try TestStack.control(["start-service", "posts"])
            })
        }

        @Test func definitionsAreAppliedAtStartAndLockTheSchemas() async throws {
            let cls = PostsHTTP.uniqueClass("Defined")
            let permissions: [String: Any] = ["find": ["*": true], "get": ["*": true], "create": ["*": true],
                                              "update": ["*": true], "delete": [:], "count": ["*": true]]
            let other = PostsHTTP.uniqueClass("Undefined")
            _ = try await PostsHTTP.create(other, ["a": 1])
            let first: [[String: Any]] = [["className": cls,
                                           "fields": ["name": ["type": "String"], "age": ["type": "Number"],
                                                      "color": ["type": "String"]],
                                           "indexes": ["name_1": ["name": 1]], "classLevelPermissions": permissions]]
            try await withDefinitions(first, ["PARSE_SERVER_SCHEMA_LOCK_SCHEMAS": "true"]) {
                let schema = try await PostsHTTP.send("GET", "/schemas/\(cls)", master: true)
                #expect(schema.status == 200, "\(schema.text)")
                let fields = schema.json?["fields"] as? [String: [String: Any]]
                #expect(fields?["name"]?["type"] as? String == "String" && fields?["age"]?["type"] as? String == "Number")
                #expect((schema.json?["indexes"] as? [String: Any])?["name_1"] != nil)
                let clp = schema.json?["classLevelPermissions"] as? [String: Any]
                #expect((clp?["addField"] as? [String: Any])?.isEmpty == true)
                #expect((clp?["delete"] as? [String: Any])?.isEmpty == true)

                let locked = try await PostsHTTP.send("PUT", "/schemas/\(cls)", ["fields": ["x": ["type": "String"]]], master: true)
                #expect(locked.code == 119 && locked.error == "Cannot perform this operation when schemas options is used.")
                let created = try await PostsHTTP.send("POST", "/classes/\(cls)", ["name": "Tom", "age": 3])
                #expect(created.status == 201, "\(created.text)")
                let newField = try await PostsHTTP.send("POST", "/classes/\(cls)", ["name": "Tim", "weight": 4])
                #expect(newField.code == 119, "\(newField.text)")
                // A class the definitions leave out keeps its permissions: a client still adds fields to it.
                let undefined = try await PostsHTTP.send("POST", "/classes/\(other)", ["a": 2, "b": "new"])
                #expect(undefined.status == 201, "\(undefined.text)")
            }
            // A second start with a changed definition: age becomes a String, color goes, with the switches.
            var second = first
            second[0]["fields"] = ["name": ["type": "String"], "age": ["type": "String"]]
            try await withDefinitions(second, ["PARSE_SERVER_SCHEMA_DELETE_EXTRA_FIELDS": "true",
                                               "PARSE_SERVER_SCHEMA_RECREATE_MODIFIED_FIELDS": "true"]) {
                let schema = try await PostsHTTP.send("GET", "/schemas/\(cls)", master: true)
                let fields = schema.json?["fields"] as? [String: [String: Any]]
                #expect(fields?["age"]?["type"] as? String == "String", "\(schema.text)")
                #expect(fields?["color"] == nil)
                // Without lockSchemas the API may change the schema again.
                let changed = try await PostsHTTP.send("PUT", "/schemas/\(cls)", ["fields": ["x": ["type": "String"]]], master: true)
                #expect(changed.status == 200, "\(changed.text)")
            }
        }
    }
}
