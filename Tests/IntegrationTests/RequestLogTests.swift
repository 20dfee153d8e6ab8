import Foundation
import Testing

extension IntegrationSuite {
    /// One grep for a request id follows the request through the system: every process it crossed wrote a JSON
    /// line with that id and the command type (the test stack logs at debug, where each request is logged).
    @Suite struct RequestLogs {
        private static func lines(_ process: String, containing requestId: String) throws -> [[String: String]] {
            let log = try String(contentsOfFile: "\(TestStack.folder)/logs/\(process).log", encoding: .utf8)
            return log.split(separator: "\n").filter { $0.contains(requestId) }.compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: String]
            }
        }

        /// Lines are written once each process is done, which for a service may be just after the answer left.
        private static func waitForLines(_ process: String, _ requestId: String, type: String) async throws -> [[String: String]] {
            for _ in 0..<40 {
                let found = try lines(process, containing: requestId)
                if found.contains(where: { $0["msg.type"]?.contains(type) == true }) { return found }
                try await Task.sleep(for: .milliseconds(100))
            }
            return try lines(process, containing: requestId)
        }

        @Test func aCreateAndAVoteCanBeFollowedByTheirRequestIds() async throws {
            let cls = PostsHTTP.uniqueClass("LogCat")
            let createId = "log-create-" + UUID().uuidString.lowercased()
            var headers = HTTP.appHeaders
            headers["Content-Type"] = "application/json"
            headers["X-Parse-Request-Id"] = createId
            let created = try await HTTP.send("POST", "/classes/\(cls)", headers: headers,
                                              body: Data(#"{"name":"Tom","votes":0}"#.utf8))
            #expect(created.status == 201, "\(created.text)")
            let id = try #require(created.json?["objectId"] as? String)

            for (process, type) in [("gateway", "rest.v1"), ("posts", "rest.v1")] {
                let found = try await Self.waitForLines(process, createId, type: type)
                #expect(!found.isEmpty, "no \(process) line for \(createId)")
                for line in found {
                    #expect(line["request.id"] == createId, "\(process): \(line)")
                    #expect(line["msg.type"]?.contains(type) == true, "\(process): \(line)")
                    #expect(line["service"] == process)
                }
            }
            // The access line, with parse-server's `method` and `url`.
            let gatewayLine = try #require(try Self.lines("gateway", containing: createId).first { $0["url"] != nil })
            #expect(gatewayLine["status"] == "201" && gatewayLine["method"] == "POST")
            #expect(gatewayLine["url"] == "/parse/classes/\(cls)")
            // Every line of the request, in every process, names the same trace.
            let traces = Set(try ["gateway", "posts"].flatMap { try Self.lines($0, containing: createId) }.map { $0["trace.id"] })
            #expect(traces.count == 1 && traces.first??.count == 32, "\(traces)")

            let voteId = "log-vote-" + UUID().uuidString.lowercased()
            let voted = try await VotesAPI.increment(cls, id, requestId: voteId)
            #expect(voted.status == 200, "\(voted.text)")
            for (process, type) in [("gateway", "votes.cast.v1"), ("votes", "votes.cast.v1")] {
                let found = try await Self.waitForLines(process, voteId, type: type)
                #expect(!found.isEmpty, "no \(process) line for \(voteId)")
                for line in found {
                    #expect(line["request.id"] == voteId, "\(process): \(line)")
                    #expect(line["msg.type"]?.contains(type) == true, "\(process): \(line)")
                }
            }
        }
    }
}
