import Foundation
import Testing

extension IntegrationSuite {
    /// Read-your-writes over posts' schema cache, with two posts processes: a write that adds fields, then at once
    /// a query on them (each operator kind that used to fail on a cached schema), 200 times; every query finds the
    /// object the write made.
    @Suite struct SchemaCoherence {
        static func clause(_ round: Int, inner: String) -> [String: Any] {
            let field = "f\(round)"
            switch round % 6 {
            case 0: return [field: round]
            case 1: return ["\(field)n": ["$containedBy": [round, round + 1, round + 2]]]
            case 2: return ["\(field)s": ["$all": [["$regex": "^ab"]]]]
            case 3: return ["$or": [[field: -1], ["\(field)p": ["$inQuery": ["where": ["name": "a"], "className": inner]]]]]
            case 4: return [field: ["$exists": true]]
            default: return [field: ["$gte": round]]
            }
        }

        @Test func queriesOnFieldsAWriteJustAddedFindItEveryTime() async throws {
            let cls = PostsHTTP.uniqueClass("Coherent")
            let inner = PostsHTTP.uniqueClass("Inner")
            let pointed = try await PostsHTTP.create(inner, ["name": "a"], master: true)
            _ = try await PostsHTTP.create(cls, ["start": 1], master: true)
            try await ServiceReplica.with("posts") {
                var misses: [String] = []
                for round in 0..<200 {
                    // Both processes read the class before the write, so each holds the schema of before it.
                    _ = try await PostsHTTP.find(cls, ["where": ["start": 1]], master: true)
                    _ = try await PostsHTTP.find(cls, ["where": ["start": 1]], master: true)
                    let field = "f\(round)"
                    let id = try await PostsHTTP.create(cls, [
                        field: round, "\(field)n": [round, round + 1], "\(field)s": ["abc", "abd"],
                        "\(field)p": PostsHTTP.pointer(inner, pointed),
                    ], master: true)
                    let clause = Self.clause(round, inner: inner)
                    let reply = try await PostsHTTP.find(cls, ["where": clause], master: true)
                    let found = PostsHTTP.results(reply).compactMap { $0["objectId"] as? String }
                    if reply.status != 200 || found != [id] { misses.append("\(round) \(clause): \(reply.status) \(reply.text)") }
                }
                #expect(misses.isEmpty, "\(misses.count) misses: \(misses.prefix(5))")
            }
        }
    }
}
