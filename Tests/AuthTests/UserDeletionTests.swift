@testable import AuthCore
import Contracts
import ParseWire
import Runtime
import ScratchDatabase
import ServiceKit
import Storage
import Testing

/// What a user's deletion does to its sessions, with `PARSE_REVOKE_SESSIONS_ON_USER_DELETE` off (parse-server's
/// behaviour) and on.
@Suite(.serialized, .enabled(if: ScratchDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL (run with `deploy/stack test`)"))
struct UserDeletionTests {
    static let logger = Logger(service: "auth-tests", level: .error)

    /// Signs a user up, deletes it with its own session, and answers the sessions left for it and whether its
    /// token still resolves.
    static func deleteASignedUpUser(revoking: Bool) async throws -> (sessionsLeft: String?, resolved: Identity?) {
        let runner = InMemoryTriggerRunner()
        let registry = TriggerRegistry(runner: runner, logger: logger)
        await registry.reload()
        let cloud = CloudTriggers(service: .auth, registry: registry, runner: runner)
        var result: (String?, Identity?) = (nil, nil)
        try await ScratchDatabase.withPool("auth", migrations: AuthService.migrations, poolSize: 2,
                                           logger: logger) { pool in
            let environment = revoking ? ["PARSE_REVOKE_SESSIONS_ON_USER_DELETE": "true"] : [:]
            let settings = try AuthSettings.fromEnvironment(Environment(environment))
            let router = AuthRouter(pool: pool, settings: settings, includes: PointerIncludes(fetch: { _, _, _, _ in [:] }))
            func call(_ method: String, _ path: String, _ body: String?, as identity: Identity) async throws -> JSONValue {
                let request = RESTRequest(method: method, path: path, query: [:], body: body, serverURL: "http://127.0.0.1/parse",
                                          headers: [:], ip: "127.0.0.9")
                let command = Command(type: RESTRequest.type, requestId: "r1", identity: identity, payload: request)
                return JSONValue.parse(try await router.handle(AuthRequest(command, logger: logger, cloud: cloud)).body) ?? .null
            }
            let made = try await call("POST", "users", #"{"username":"gone","password":"secret1"}"#, as: .anonymous)
            let id = try #require(made["objectId"]?.stringValue)
            let token = try #require(made["sessionToken"]?.stringValue)
            let owner = Identity(userId: id, roles: [], sessionToken: token)
            _ = try await call("DELETE", "users/\(id)", nil, as: owner)
            #expect(try await pool.query("SELECT count(*) AS n FROM users").first?["n"] == "0")
            let left = try await pool.query("SELECT count(*) AS n FROM sessions WHERE user_id = $1", [id]).first?["n"]
            let resolver = SessionResolveHandler(database: pool, sessions: SessionStore(settings: settings))
            let resolve = Command(type: ResolveSession.type, requestId: "r2",
                                  identity: Identity(userId: nil, roles: [], sessionToken: token), payload: Empty())
            result = (left, try? await resolver.resolve(resolve))
        }
        return result
    }

    @Test func aDeletedUsersSessionsStayAndItsTokenStillResolvesByDefault() async throws {
        let (left, resolved) = try await Self.deleteASignedUpUser(revoking: false)
        #expect(left == "1")
        #expect(resolved?.userId != nil)
        #expect(resolved?.roles == [])
    }

    @Test func withRevocationOnADeletedUsersSessionsEnd() async throws {
        let (left, resolved) = try await Self.deleteASignedUpUser(revoking: true)
        #expect(left == "0")
        #expect(resolved == nil)
    }
}
