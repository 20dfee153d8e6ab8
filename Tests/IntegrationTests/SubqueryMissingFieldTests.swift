import Foundation
import Testing

extension IntegrationSuite {
    /// Subqueries naming a field that no row has: parse-server matches nothing (`$inQuery`, `$select`) or
    /// everything (`$notInQuery`, `$dontSelect`), at once. They were a statement PostgreSQL refused, tried five
    /// times, dead-lettered, and answered 500.
    @Suite struct SubqueryMissingField {
        @Test func subqueriesOnMissingFieldsAnswerAtOnce() async throws {
            let inner = PostsHTTP.uniqueClass("Inner")
            let outer = PostsHTTP.uniqueClass("Outer")
            _ = try await PostsHTTP.create(inner, ["name": "a"], master: true)
            let kept = try await PostsHTTP.create(outer, ["title": "t"], master: true)
            let innerQuery = ["where": ["name": "a"], "className": inner] as [String: Any]
            let cases: [([String: Any], [String])] = [
                (["owner": ["$inQuery": innerQuery]], []),
                (["owner": ["$notInQuery": innerQuery]], [kept]),
                (["title": ["$select": ["query": innerQuery, "key": "missing"]]], []),
                (["title": ["$dontSelect": ["query": innerQuery, "key": "missing"]]], [kept]),
            ]
            for (clause, expected) in cases {
                let reply = try await PostsHTTP.find(outer, ["where": clause], master: true)
                #expect(reply.status == 200, "\(clause): \(reply.status) \(reply.text)")
                #expect(PostsHTTP.results(reply).compactMap { $0["objectId"] as? String } == expected, "\(clause)")
            }
        }
    }
}
