import Foundation
import ParseWire
import TestDoubles
import Testing

extension IntegrationSuite {
    /// What one anonymous request used to take down a service with, and a few hundred generated where clauses: every
    /// answer is a Parse error with a 4xx status or a success, and every service is still up afterwards.
    @Suite struct HostileInput {
        static func stillUp() async throws {
            let ready = try await HTTP.send("GET", "/health/ready")
            #expect(ready.status == 200, "a service went down: \(ready.text)")
        }

        @Test func aDateFarOffIsRefusedAndTheServicesStayUp() async throws {
            for path in ["/classes/FarOff", "/users"] {
                for text in ["in 300000000 years", "3000000000000000000 years ago", "in 99999999999 weeks"] {
                    let query = ["where": #"{"createdAt":{"$gt":{"$relativeTime":"\#(text)"}}}"#]
                    let answer = try await PostsHTTP.send("GET", path, master: true, query: query)
                    #expect(answer.status == 400 && answer.json?["code"] as? Int == 107, "\(path) \(text): \(answer.text)")
                    #expect((answer.json?["error"] as? String)?.contains("out of range") == true, "\(answer.text)")
                }
                let farDate = ["where": #"{"createdAt":{"$lt":{"__type":"Date","iso":"275760-09-13T00:00:00.001Z"}}}"#]
                let refused = try await PostsHTTP.send("GET", path, master: true, query: farDate)
                #expect(refused.status == 400, "\(path): \(refused.text)")
            }
            try await Self.stillUp()
        }

        @Test func aNumberPastADoublesRangeSaysSo() async throws {
            let cls = PostsHTTP.uniqueClass("Huge")
            let id = try await PostsHTTP.create(cls, ["n": 1], master: true)
            for (method, path, body) in [("POST", "/classes/\(cls)", #"{"n":1e999999}"#),
                                         ("PUT", "/classes/\(cls)/\(id)", #"{"n":{"__op":"Increment","amount":-1e400}}"#),
                                         ("POST", "/users", #"{"username":"huge","password":"p","n":1e999999}"#)] {
                let reply = try await PostsHTTP.send(method, path, body, master: true)
                #expect(reply.status == 400 && reply.json?["code"] as? Int == 107, "\(method) \(path): \(reply.text)")
                #expect((reply.json?["error"] as? String)?.contains("out of range") == true, "\(reply.text)")
            }
            let query = try await PostsHTTP.send("GET", "/classes/\(cls)", master: true, query: ["where": #"{"n":{"$gt":1e999999}}"#])
            #expect(query.status == 400 && (query.json?["error"] as? String)?.contains("out of range") == true, "\(query.text)")
        }

        @Test func generatedWhereClausesAreAnsweredWithoutAServerError() async throws {
            let cls = PostsHTTP.uniqueClass("Hostile")
            _ = try await PostsHTTP.create(cls, ["name": "a", "votes": 1, "tags": ["x"], "when": ["__type": "Date", "iso": "2024-01-01T00:00:00.000Z"],
                                                 "where": ["__type": "GeoPoint", "latitude": 1, "longitude": 2], "meta": ["a": 1]],
                                           master: true)
            var hostile = HostileJSON(seed: 35)
            var failures: [String] = []
            for round in 0..<300 {
                let clause = hostile.whereClause().compactText
                let path = round.isMultiple(of: 3) ? "/users" : "/classes/\(cls)"
                let reply = try await PostsHTTP.send("GET", path, master: round.isMultiple(of: 2), query: ["where": clause])
                let answered = reply.status == 200 || (400..<500).contains(reply.status) && reply.json?["code"] is Int
                if !answered { failures.append("\(path) \(clause): \(reply.status) \(reply.text.prefix(200))") }
            }
            #expect(failures.isEmpty, "\(failures.count) answers that are not a success or a Parse error: \(failures.prefix(5))")
            try await Self.stillUp()
        }
    }
}
