import Foundation
import Testing

extension IntegrationSuite {
    /// A change of a class's permissions applies to LiveQuery at once: `protectedFields` flips between hiding a
    /// field and not, and the object created (or voted on) right after each change reaches the subscriber shaped by
    /// the new permissions, on every live process.
    @Suite struct LiveCoherence {
        static func permissions(hiding: Bool) -> [String: Any] {
            [
                "find": ["*": true], "get": ["*": true], "create": ["*": true], "update": ["*": true],
                "delete": ["*": true], "count": ["*": true], "addField": ["*": true],
                "protectedFields": ["*": hiding ? ["secret"] : []],
            ]
        }

        /// Hides `secret` from everyone, or shows it again, through `PUT /schemas`.
        static func protectSecret(_ className: String, hiding: Bool) async throws {
            let changed = try await PostsHTTP.send("PUT", "/schemas/\(className)", [
                "className": className, "classLevelPermissions": permissions(hiding: hiding),
            ], master: true)
            #expect(changed.status == 200, "\(changed.text)")
        }

        /// A class of `fields` whose `protectedFields` do not hide `secret` yet, two live processes (the stack's
        /// and a replica on a port of its own) and two posts processes, and `body` with a subscriber to the class on
        /// each live process; the object made with `first` reached both, so both are bound to the events.
        static func onTwoProcesses(_ prefix: String, fields: [String: Any], first: [String: Any],
                                   _ body: (_ className: String, _ firstId: String, _ clients: [LiveQueryClient]) async throws -> Void)
            async throws {
            let className = PostsHTTP.uniqueClass(prefix)
            let created = try await PostsHTTP.send("POST", "/schemas/\(className)", [
                "className": className, "fields": fields, "classLevelPermissions": Self.permissions(hiding: false),
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
                    let firstId = try await PostsHTTP.create(className, first, master: true)
                    for client in clients { #expect(LiveQuery.object(try client.receive())["objectId"] as? String == firstId) }
                    try await body(className, firstId, clients)
                }
            }
        }

        /// The changes and the creates served by either posts process.
        @Test func theFirstEventAfterAPermissionsChangeFollowsIt() async throws {
            try await Self.onTwoProcesses("LiveRules", fields: ["secret": ["type": "String"]],
                                          first: ["secret": "first"]) { className, _, clients in
                var misses: [String] = []
                for round in 0..<200 {
                    let hiding = round % 2 == 0
                    try await Self.protectSecret(className, hiding: hiding)
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

        /// The same for votes: a vote event names the permissions posts applied its ballot under, so the vote
        /// right after a change reaches the subscriber shaped by the new permissions, not by a copy live read
        /// before the change (vote events once carried no version, and live trusted its copy for 5 s).
        @Test func theFirstVoteAfterAPermissionsChangeFollowsIt() async throws {
            try await Self.onTwoProcesses("LiveVoteRules", fields: ["secret": ["type": "String"], "votes": ["type": "Number"]],
                                          first: ["secret": "s", "votes": 0]) { className, id, clients in
                var misses: [String] = []
                for round in 0..<100 {
                    let hiding = round % 2 == 0
                    try await Self.protectSecret(className, hiding: hiding)
                    #expect(try await VotesAPI.increment(className, id).status == 200)
                    for (index, client) in clients.enumerated() {
                        let event = LiveQuery.object(try client.receive())
                        if event["votes"] as? Int != round + 1 || (event["secret"] != nil) == hiding {
                            misses.append("round \(round), live \(index): hiding \(hiding), received \(event)")
                        }
                    }
                }
                #expect(misses.count == 0, "\(misses.count) misses: \(misses.prefix(5))")
            }
        }
    }
}
