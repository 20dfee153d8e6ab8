import Foundation
import Testing

extension IntegrationSuite {
    @Suite struct PlatformServerInfo {
        @Test func answersTheFeatureListAndVersionWithTheMasterKey() async throws {
            let reply = try await PostsHTTP.send("GET", "/serverInfo", master: true)
            #expect(reply.status == 200)
            let json = try #require(reply.json)
            #expect(Set(json.keys) == ["features", "parseServerVersion"])
            let version = try #require(json["parseServerVersion"] as? String)
            #expect(version.range(of: #"^\d+\.\d+\.\d+$"#, options: .regularExpression) != nil)
            let features = try #require(json["features"] as? [String: [String: Bool]])
            #expect(Set(features.keys) == ["globalConfig", "hooks", "cloudCode", "logs", "push", "schemas"])
            #expect(Set(features["push"]?.keys.map { $0 } ?? []) ==
                    ["immediatePush", "scheduledPush", "storedPushData", "pushAudiences", "localization"])
            #expect(features["schemas"]?["addClass"] == true && features["schemas"]?["editPointerPermissions"] == true)
            #expect(features["globalConfig"]?.values.allSatisfy { $0 } == true)
            #expect(features["push"]?["immediatePush"] == true && features["push"]?["scheduledPush"] == true)
            #expect(features["push"]?["pushAudiences"] == true && features["push"]?["localization"] == true)
        }

        /// The logs flags say yes, and `/scriptlog` answers with a list.
        @Test func flagsLogsThatAreServed() async throws {
            let features = try #require(try await PostsHTTP.send("GET", "/serverInfo", master: true).json?["features"]
                as? [String: [String: Bool]])
            #expect(features["logs"] == ["level": true, "size": true, "order": true, "until": true, "from": true])
            let reply = try await PostsHTTP.send("GET", "/scriptlog", master: true)
            #expect(reply.status == 200 && (try? JSONSerialization.jsonObject(with: reply.body)) is [Any], "\(reply.text)")
        }

        /// The hooks and jobs flags say yes, and their routes answer.
        @Test func flagsHooksAndJobsThatAreServed() async throws {
            let features = try #require(try await PostsHTTP.send("GET", "/serverInfo", master: true).json?["features"]
                as? [String: [String: Bool]])
            #expect(features["hooks"]?.values.allSatisfy { $0 } == true)
            #expect(features["cloudCode"]?["jobs"] == true)
            let hooks = try await PostsHTTP.send("GET", "/hooks/functions", master: true)
            #expect(hooks.status == 200, "\(hooks.text)")
            let jobs = try await PostsHTTP.send("GET", "/cloud_code/jobs/data", master: true)
            #expect(jobs.status == 200, "\(jobs.text)")
        }

        @Test func refusesWithoutTheMasterKey() async throws {
            let reply = try await PostsHTTP.send("GET", "/serverInfo")
            #expect(reply.status == 403)
            #expect(reply.text == #"{"error":"unauthorized: master key is required"}"#)
        }
    }
}
