import Foundation
import Testing

extension IntegrationSuite {
    @Suite struct GatewayHTTP {
        @Test func healthAnswersGetAndPostWithoutKeys() async throws {
            for method in ["GET", "POST"] {
                let reply = try await HTTP.send(method, "/health", headers: ["Content-Type": "application/json"])
                #expect(reply.status == 200)
                #expect(reply.text == #"{"status":"ok"}"#)
                #expect(reply.header("Content-Type")?.hasPrefix("application/json") == true)
            }
        }

        @Test func readinessReportsEveryServiceReady() async throws {
            let reply = try await HTTP.send("GET", "/health/ready")
            #expect(reply.status == 200)
            let json = try #require(reply.json)
            #expect(json["status"] as? String == "ok")
            let services = try #require(json["services"] as? [String: [String: Any]])
            #expect(Set(services.keys) == ["auth", "posts", "votes", "files", "cloud"])
            for (name, state) in services {
                #expect(state["status"] as? String == "ok", "\(name) is not ready: \(state)")
            }
        }

        @Test func missingApplicationIdIsUnauthorized() async throws {
            let reply = try await HTTP.send("GET", "/classes/GameScore")
            #expect(reply.status == 403)
            #expect(reply.text == #"{"error":"unauthorized"}"#)
        }

        @Test func wrongApplicationIdIsUnauthorized() async throws {
            let reply = try await HTTP.send("GET", "/classes/GameScore", headers: ["X-Parse-Application-Id": "not-the-app"])
            #expect(reply.status == 403)
            #expect(reply.text == #"{"error":"unauthorized"}"#)
        }

        @Test func applicationIdInTheBodyIsAcceptedAsTheJavaScriptSDKSendsIt() async throws {
            let body = Data(#"{"_method":"GET","_ApplicationId":"\#(TestStack.applicationId)","where":{}}"#.utf8)
            let reply = try await HTTP.send("POST", "/classes/GameScore", headers: ["Content-Type": "text/plain"], body: body)
            #expect(reply.status != 403)
            #expect(reply.json != nil, "a Parse answer from the posts service: \(reply.text)")
        }

        @Test func preflightAnswersWithCORSHeaders() async throws {
            let reply = try await HTTP.send("OPTIONS", "/classes/GameScore")
            #expect(reply.status == 200)
            #expect(reply.header("Access-Control-Allow-Origin") == "*")
            #expect(reply.header("Access-Control-Allow-Methods") == "GET,PUT,POST,DELETE,OPTIONS")
            #expect(reply.header("Access-Control-Allow-Headers")?.contains("X-Parse-Session-Token") == true)
        }

        @Test func unknownRouteIsAParseError() async throws {
            let reply = try await HTTP.send("GET", "/no-such-route", headers: HTTP.appHeaders)
            #expect(reply.status == 404)
            #expect(reply.json?["code"] as? Int == 108)
            let outside = try await HTTP.send("GET", "/elsewhere", headers: HTTP.appHeaders,
                                              base: TestStack.serverURL.replacingOccurrences(of: "/parse", with: ""))
            #expect(outside.status == 404)
        }

        @Test func malformedJSONBodyIsCode107() async throws {
            let reply = try await HTTP.send("POST", "/classes/GameScore", headers: HTTP.appHeaders, body: Data("{bad".utf8))
            #expect(reply.status == 400)
            #expect(reply.text == #"{"code":107,"error":"Invalid JSON"}"#)
        }

        @Test func bodyAboveTheLimitIs413() async throws {
            let body = Data(count: 20 * 1024 * 1024 + 1)
            let reply = try await HTTP.send("POST", "/classes/GameScore", headers: HTTP.appHeaders, body: body)
            #expect(reply.status == 413)
            #expect(reply.text == #"{"error":"request entity too large"}"#)
        }

        @Test func malformedHTTPIsRefusedAndTheServerKeepsServing() async throws {
            let url = try #require(URL(string: TestStack.serverURL))
            let port = UInt16(try #require(url.port))
            let answer = try RawSocket.exchange("HELLO WORLD\r\n\r\n", host: "127.0.0.1", port: port)
            #expect(answer.hasPrefix("HTTP/1.1 400"))
            let duplicate = try RawSocket.exchange(
                "POST /parse/classes/A HTTP/1.1\r\nHost: x\r\nX-Parse-Application-Id: \(TestStack.applicationId)\r\n"
                    + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", host: "127.0.0.1", port: port)
            #expect(duplicate.hasPrefix("HTTP/1.1 400"))
            let health = try await HTTP.send("GET", "/health")
            #expect(health.status == 200)
        }

        @Test func requestsReachTheOwningServiceWithTheMasterKey() async throws {
            let reply = try await HTTP.send("GET", "/classes/GameScore",
                                            headers: HTTP.appHeaders.merging(["X-Parse-Master-Key": TestStack.masterKey]) { $1 })
            #expect(TestStack.answeredByAService(reply), "\(reply.status) \(reply.text)")
        }
    }
}
