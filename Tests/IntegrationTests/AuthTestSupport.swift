import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Users and requests for the auth tests: every test makes its own users (unique names), so tests never
/// depend on each other's data.
enum AuthAPI {
    struct User {
        let id: String
        let username: String
        let password: String
        let token: String
    }

    static func uniqueName(_ prefix: String) -> String {
        "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
    }

    static func json(_ object: [String: Any]) -> Data {
        try! JSONSerialization.data(withJSONObject: object)
    }

    static func headers(token: String? = nil, master: Bool = false) -> [String: String] {
        var headers = HTTP.appHeaders
        headers["Content-Type"] = "application/json"
        if let token { headers["X-Parse-Session-Token"] = token }
        if master { headers["X-Parse-Master-Key"] = TestStack.masterKey }
        return headers
    }

    static func send(_ method: String, _ path: String, _ body: [String: Any]? = nil, token: String? = nil,
                     master: Bool = false, base: String = TestStack.serverURL) async throws -> Reply {
        try await HTTP.send(method, path, headers: headers(token: token, master: master), body: body.map(json), base: base)
    }

    static func signUp(_ prefix: String = "user", email: Bool = false, extra: [String: Any] = [:]) async throws -> User {
        let username = uniqueName(prefix)
        let password = "pw-\(UUID().uuidString)"
        var body: [String: Any] = ["username": username, "password": password]
        if email { body["email"] = "\(username)@example.com" }
        body.merge(extra) { $1 }
        let reply = try await send("POST", "/users", body)
        guard reply.status == 201, let json = reply.json, let id = json["objectId"] as? String,
              let token = json["sessionToken"] as? String else {
            throw AuthTestError(description: "signup failed: \(reply.status) \(reply.text)")
        }
        return User(id: id, username: username, password: password, token: token)
    }

    static func login(_ username: String, _ password: String) async throws -> Reply {
        try await send("POST", "/login", ["username": username, "password": password])
    }

    /// `{"code":N,"error":"..."}` of a reply, for exact comparisons.
    static func error(_ reply: Reply) -> (Int?, String?) {
        (reply.json?["code"] as? Int, reply.json?["error"] as? String)
    }

    /// Runs SQL on the auth service's own database (the test stack's PostgreSQL), for what no API can do, such
    /// as planting a password hash made by another bcrypt implementation.
    static func authDatabase(_ sql: String) throws {
        guard let scratch = TestStack.environment["PARSE_TEST_DATABASE_URL"],
              let slash = scratch.lastIndex(of: "/") else { throw AuthTestError(description: "no PARSE_TEST_DATABASE_URL") }
        let url = String(scratch[..<slash]) + "/parse_auth"
        let psql = ["/usr/bin/psql", "/usr/lib/postgresql/15/bin/psql"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let psql else { throw AuthTestError(description: "psql not found") }
        let status = try Spawned.run([psql, "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql])
        guard status == 0 else { throw AuthTestError(description: "psql failed with status \(status)") }
    }
}

struct AuthTestError: Error, CustomStringConvertible { let description: String }

/// Child processes through posix_spawn (Foundation's Process was seen to hang on exit detection here).
enum Spawned {
    static func start(_ arguments: [String], environment: [String: String]) throws -> pid_t {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], nil, nil, argv, envp) == 0 else {
            throw AuthTestError(description: "cannot start \(arguments[0])")
        }
        return pid
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let pid = try start(arguments, environment: TestStack.environment)
        return wait(pid)
    }

    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
    }
}
