@testable import GatewayCore
import Runtime
import Testing

/// Which writes the gateway marks for the services to apply once per request id.
struct IdempotentPathsTests {
    @Test func coversEveryWriteByDefaultAndNoRead() throws {
        let paths = try IdempotentPaths.fromEnvironment(Environment([:]))
        #expect(paths.covers(method: "POST", path: "classes/Cat"))
        #expect(paths.covers(method: "PUT", path: "classes/Cat/abc"))
        #expect(paths.covers(method: "DELETE", path: "classes/Cat/abc"))
        #expect(paths.covers(method: "POST", path: "users"))
        #expect(paths.covers(method: "POST", path: "batch"))
        #expect(!paths.covers(method: "GET", path: "classes/Cat"))
    }

    @Test func matchesParseServerPathsFromTheStart() throws {
        let paths = try IdempotentPaths.fromEnvironment(Environment(["PARSE_SERVER_IDEMPOTENCY_PATHS": #"["classes/.*","users"]"#]))
        #expect(paths.covers(method: "POST", path: "classes/Cat"))
        #expect(paths.covers(method: "POST", path: "users"))
        #expect(!paths.covers(method: "POST", path: "batch"))
        #expect(!paths.covers(method: "POST", path: "x/classes/Cat"))
        let listed = try IdempotentPaths.fromEnvironment(Environment(["PARSE_SERVER_IDEMPOTENCY_PATHS": "batch, users"]))
        #expect(listed.covers(method: "POST", path: "batch"))
        #expect(!listed.covers(method: "POST", path: "classes/Cat"))
    }

    @Test func canBeSwitchedOffAndRefusesWhatItCannotRead() throws {
        let off = try IdempotentPaths.fromEnvironment(Environment(["PARSE_SERVER_IDEMPOTENCY": "false"]))
        #expect(!off.covers(method: "POST", path: "classes/Cat"))
        #expect(throws: ConfigurationError.self) {
            try IdempotentPaths.fromEnvironment(Environment(["PARSE_SERVER_IDEMPOTENCY": "maybe"]))
        }
        #expect(throws: ConfigurationError.self) {
            try IdempotentPaths.fromEnvironment(Environment(["PARSE_SERVER_IDEMPOTENCY_PATHS": "(unclosed"]))
        }
    }
}
