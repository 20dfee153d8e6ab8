import Foundation
import Testing

extension IntegrationSuite {
    /// parse-server's `publicServerURL` (`PARSE_PUBLIC_SERVER_URL`): file urls start with it, in the upload answer
    /// and in the `File` values of objects, whatever host the client reached.
    @Suite struct FilesPublicURL {
        static let publicURL = "https://files.example.com/parse"

        /// Restarts the gateway and posts with `settings`, runs `body`, then restarts them as they were.
        private func withServices(_ settings: [String: String], _ body: () async throws -> Void) async throws {
            for service in ["gateway", "posts"] {
                try TestStack.control(["stop-service", service])
                try TestStack.control(["start-service", service], settings: settings)
            }
            try await TestStack.run(body, thenAlways: {
                for service in ["gateway", "posts"] {
                    try TestStack.control(["stop-service", service])
                    try TestStack.control(["start-service", service])
                }
            })
        }

        @Test func objectReadsGiveFileURLsOnThePublicServerURL() async throws {
            try await withServices(["PARSE_PUBLIC_SERVER_URL": Self.publicURL + "/"]) {
                let user = try await AuthAPI.signUp("public")
                let upload = try await FilesAPI.upload("sky.jpg", FilesAPI.pattern(300), contentType: "image/jpeg",
                                                       token: user.token)
                #expect(upload.status == 201)
                let name = try #require(upload.json?["name"] as? String)
                let url = try #require(upload.json?["url"] as? String)
                #expect(url == "\(Self.publicURL)/files/\(TestStack.applicationId)/\(name)")

                let post: [String: Any] = ["text": "sky", "image": ["__type": "File", "name": name]]
                let created = try await HTTP.send(
                    "POST", "/classes/WallPost",
                    headers: FilesAPI.headers(token: user.token, contentType: "application/json"),
                    body: try JSONSerialization.data(withJSONObject: post))
                #expect(created.status == 201)
                let id = try #require(created.json?["objectId"] as? String)

                let read = try await HTTP.send("GET", "/classes/WallPost/\(id)", headers: FilesAPI.headers(token: user.token))
                let image = try #require(read.json?["image"] as? [String: Any])
                #expect(image["url"] as? String == url)
                let listed = try await HTTP.send("GET", "/classes/WallPost?where=%7B%22text%22%3A%22sky%22%7D",
                                                 headers: FilesAPI.headers(token: user.token))
                let results = try #require(listed.json?["results"] as? [[String: Any]])
                #expect(results.contains { ($0["image"] as? [String: Any])?["url"] as? String == url })
            }
        }
    }
}
