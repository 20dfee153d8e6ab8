import Foundation
import Testing

extension IntegrationSuite {
    /// A change of a class's permissions applies to LiveQuery at once: `protectedFields` flips between hiding a
    /// field and not, and the object created right after each change reaches the subscriber shaped by the new
    /// permissions, 200 times.
    @Suite struct LiveCoherence {
        static func permissions(hiding: Bool) -> [String: Any] {
            [
                "find": ["*": true], "get": ["*": true], "create": ["*": true], "update": ["*": true],
                "delete": ["*": true], "count": ["*": true], "addField": ["*": true],
                "protectedFields": ["*": hiding ? ["secret"] : []],
            ]
        }

        @Test func theFirstEventAfterAPermissionsChangeFollowsIt() async throws {
            let className = PostsHTTP.uniqueClass("LiveRules")
            let created = try await PostsHTTP.send("POST", "/schemas/\(className)", [
                "className": className, "fields": ["secret": ["type": "String"]],
                "classLevelPermissions": Self.permissions(hiding: false),
            ], master: true)
            #expect(created.status == 200, "\(created.text)")
            let client = try LiveQueryClient()
            _ = try client.connect()
            try client.subscribe(1, className: className)
            var misses: [String] = []
            for round in 0..<200 {
                let hiding = round % 2 == 0
                let changed = try await PostsHTTP.send("PUT", "/schemas/\(className)", [
                    "className": className, "classLevelPermissions": Self.permissions(hiding: hiding),
                ], master: true)
                #expect(changed.status == 200, "\(changed.text)")
                let id = try await PostsHTTP.create(className, ["secret": "s\(round)"], master: true)
                let event = LiveQuery.object(try client.receive())
                let shown = event["secret"] != nil
                if event["objectId"] as? String != id || shown == hiding {
                    misses.append("round \(round): hiding \(hiding), received \(event)")
                }
            }
            #expect(misses.count == 0, "misses: \(misses.prefix(5))")
        }
    }
}
