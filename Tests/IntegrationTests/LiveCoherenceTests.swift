import Foundation
import Testing

extension IntegrationSuite {
    /// A change of a class's permissions applies to LiveQuery at once: `protectedFields` flips between hiding a
    /// field and not, and the object created right after each change reaches the subscriber shaped by the new
    /// permissions, 200 times, on every live process.
    @Suite struct LiveCoherence {
        static func permissions(hiding: Bool) -> [String: Any] {
            [
                "find": ["*": true], "get": ["*": true], "create": ["*": true], "update": ["*": true],
                "delete": ["*": true], "count": ["*": true], "addField": ["*": true],
                "protectedFields": ["*": hiding ? ["secret"] : []],
            ]
        }

        /// Two live processes (the stack's and a replica on a port of its own) and two posts processes: a
        /// subscriber on each live process, the changes and the creates served by either posts process.
        @Test func theFirstEventAfterAPermissionsChangeFollowsIt() async throws {
            let className = PostsHTTP.uniqueClass("LiveRules")
            let created = try await PostsHTTP.send("POST", "/schemas/\(className)", [
                "className": className, "fields": ["secret": ["type": "String"]],
                "classLevelPermissions": Self.permissions(hiding: false),
            ], master: true)
            #expect(created.status == 200, "\(created.text)")
            let stackPort = URLComponents(string: LiveQueryClient.url)?.port ?? 21338
            let replicaURL = LiveQueryClient.url.replacingOccurrences(of: ":\(stackPort)/", with: ":\(stackPort + 40)/")
            try await ServiceReplica.with("posts") {
                try await ServiceReplica.with("live", settings: ["PARSE_LIVE_QUERY_PORT": "\(stackPort + 40)"],
                                              readyLine: "\"listening\"") {
                    let clients = [try LiveQueryClient(), try LiveQueryClient(url: replicaURL)]
                    for client in clients {
                        _ = try client.connect()
                        try client.subscribe(1, className: className)
                    }
                    // The replica's event queue is bound shortly after it listens: the first event shows it is.
                    let first = try await PostsHTTP.create(className, ["secret": "first"], master: true)
                    for client in clients { #expect(LiveQuery.object(try client.receive())["objectId"] as? String == first) }
                    var misses: [String] = []
                    for round in 0..<200 {
                        let hiding = round % 2 == 0
                        let changed = try await PostsHTTP.send("PUT", "/schemas/\(className)", [
                            "className": className, "classLevelPermissions": Self.permissions(hiding: hiding),
                        ], master: true)
                        #expect(changed.status == 200, "\(changed.text)")
                        let id = try await PostsHTTP.create(className, ["secret": "s\(round)"], master: true)
                        for (index, client) in clients.enumerated() {
                            let event = LiveQuery.object(try client.receive())
                            if event["objectId"] as? String != id || (event["secret"] != nil) == hiding {
                                misses.append("round \(round), live \(index): hiding \(hiding), received \(event)")
                            }
                        }
                    }
                    #expect(misses.count == 0, "misses: \(misses.prefix(5))")
                }
            }
        }
    }
}
