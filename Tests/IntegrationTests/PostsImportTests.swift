import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension IntegrationSuite {
    @Suite struct PostsImport {
        /// Runs the built `parse-import` against the test stack; returns its exit status.
        static func runImport(_ arguments: [String]) throws -> Int32 {
            let binary = (TestStack.environment["PARSE_BIN_DIR"] ?? ".build/debug") + "/parse-import"
            let argv = ([binary] + arguments).map { strdup($0) } + [nil]
            var environment = TestStack.environment
            environment["PARSE_SERVER_URL"] = TestStack.serverURL
            environment["PARSE_SERVER_APPLICATION_ID"] = TestStack.applicationId
            environment["PARSE_SERVER_MASTER_KEY"] = TestStack.masterKey
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            var pid: pid_t = 0
            guard posix_spawn(&pid, binary, nil, nil, argv, envp) == 0 else {
                throw PostsTestError(description: "cannot run \(binary)")
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            return (status >> 8) & 0xff
        }

        @Test func theCatsFlowEndToEnd() async throws {
            let cls = PostsHTTP.uniqueClass("Cat")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(cls).json")
            let source = try Data(contentsOf: URL(fileURLWithPath: "bench/objects-cats.json"))
            try source.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }

            #expect(try Self.runImport(["--class", cls, file.path]) == 0)
            let listed = PostsHTTP.results(try await PostsHTTP.find(cls, ["order": ["name"]]))
            #expect(listed.count == 10)
            #expect(listed.compactMap { $0["name"] as? String } == ["Felix", "Garfield", "Luna", "Misty", "Nala", "Oscar", "Salem", "Simba", "Tom", "Whiskers"])
            let felix = try #require(listed.first)
            #expect(felix["objectId"] as? String == "cat0000001")
            #expect(felix["createdAt"] as? String == "2024-01-02T10:00:00.000Z")
            #expect(felix["cc_by"] as? String == "Photographer 2")

            let vote = try await PostsHTTP.send("PUT", "/classes/\(cls)/cat0000001", ["votes": ["__op": "Increment", "amount": 1]])
            #expect(vote.json?["votes"] as? Int == 8)
            let reread = try await PostsHTTP.send("GET", "/classes/\(cls)/cat0000001")
            #expect(reread.json?["votes"] as? Int == 8)
            let top = PostsHTTP.results(try await PostsHTTP.find(cls, ["order": ["-votes"], "limit": 2]))
            #expect(top.compactMap { $0["name"] as? String } == ["Garfield", "Luna"])

            // Importing the same ids again fails per object and says so.
            #expect(try Self.runImport(["--class", cls, file.path]) == 1)
            #expect(try Self.runImport(["--class", cls, "--new-ids", file.path]) == 0)
            #expect(try await PostsHTTP.find(cls, ["count": 1, "limit": 0]).json?["count"] as? Int == 20)
        }

        @Test func clientsCannotSetIdsOrDates() async throws {
            let cls = PostsHTTP.uniqueClass("Cat")
            let reply = try await PostsHTTP.send("POST", "/classes/\(cls)", ["name": "x", "createdAt": "2001-01-01T00:00:00.000Z"])
            #expect(reply.status == 201)
            #expect(reply.json?["createdAt"] as? String != "2001-01-01T00:00:00.000Z")
        }
    }
}
