import Foundation
import Testing

extension IntegrationSuite {
    /// Every refusal in parse-server's exact words.
    @Suite struct FilesErrors {
        private func expectError(_ reply: Reply, status: Int, code: Int, _ message: String) {
            #expect(reply.status == status, "\(reply.text)")
            #expect(AuthAPI.error(reply).0 == code)
            #expect(AuthAPI.error(reply).1 == message)
        }

        @Test func emptyFilesAreRefused() async throws {
            let user = try await AuthAPI.signUp("empty")
            let reply = try await FilesAPI.upload("empty.txt", Data(), token: user.token)
            expectError(reply, status: 400, code: 130, "Invalid file upload.")
        }

        @Test func thePublicMayNotUpload() async throws {
            let reply = try await FilesAPI.upload("anon.txt", Data("x".utf8))
            expectError(reply, status: 400, code: 130, "File upload by public is disabled.")
        }

        @Test func withoutTheApplicationIdItIsUnauthorized() async throws {
            let reply = try await HTTP.send("POST", "/files/a.txt", body: Data("x".utf8))
            #expect(reply.status == 403)
            #expect(reply.text == #"{"error":"unauthorized"}"#)
        }

        @Test func htmlIsRefusedByExtensionOrContentType() async throws {
            let user = try await AuthAPI.signUp("html")
            expectError(try await FilesAPI.upload("page.html", Data("<p>".utf8), token: user.token),
                        status: 400, code: 130, "File upload of extension html is disabled.")
            expectError(try await FilesAPI.upload("page.HTM", Data("<p>".utf8), token: user.token),
                        status: 400, code: 130, "File upload of extension HTM is disabled.")
            expectError(try await FilesAPI.upload("page", Data("<p>".utf8), contentType: "text/html", token: user.token),
                        status: 400, code: 130, "File upload of extension html is disabled.")
            #expect(try await FilesAPI.upload("page.html", Data("<p>".utf8), master: true).status == 201)
        }

        @Test func badNamesAreRefused() async throws {
            let user = try await AuthAPI.signUp("names")
            expectError(try await FilesAPI.upload(String(repeating: "a", count: 129), Data("x".utf8), token: user.token),
                        status: 400, code: 122, "Filename too long.")
            for name in ["-start.txt", "semi;colon.txt", "é.txt", ".hidden"] {
                expectError(try await FilesAPI.upload(name, Data("x".utf8), token: user.token),
                            status: 400, code: 122, "Filename contains invalid characters.")
            }
            #expect(try await FilesAPI.upload(String(repeating: "a", count: 128), Data("x".utf8), token: user.token)
                        .status == 201)
        }

        @Test func aMissingNameIsRefused() async throws {
            let reply = try await HTTP.send("POST", "/files", headers: HTTP.appHeaders, body: Data("x".utf8))
            expectError(reply, status: 400, code: 122, "Filename not provided.")
        }

        @Test func bodiesAboveTheLimitAreTooLarge() async throws {
            let user = try await AuthAPI.signUp("big")
            let reply = try await FilesAPI.upload("big.bin", Data(count: 20 * 1024 * 1024 + 1), token: user.token)
            #expect(reply.status == 413)
            #expect(reply.text == #"{"error":"request entity too large"}"#)
        }

        @Test func unknownFilesAreNotFound() async throws {
            let reply = try await HTTP.send("GET", FilesAPI.downloadPath("0123_nothing.txt"))
            #expect(reply.status == 404)
            #expect(reply.text == "File not found.")
            #expect(reply.header("Content-Type")?.hasPrefix("text/plain") == true)
        }

        @Test func anUnknownApplicationIdIsForbidden() async throws {
            let reply = try await HTTP.send("GET", "/files/not-the-app/x.txt")
            expectError(reply, status: 403, code: 119, "Invalid application ID.")
        }
    }
}
