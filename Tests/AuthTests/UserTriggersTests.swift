@testable import AuthCore
import Contracts
import ParseWire
import Runtime
import ScratchDatabase
import ServiceKit
import Storage
import Testing

/// auth's trigger hook points against a scratch database, with Cloud Code replaced by `InMemoryTriggerRunner`.
@Suite(.serialized, .enabled(if: ScratchDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL (run with `deploy/stack test`)"))
struct UserTriggersTests {
    static let logger = Logger(service: "auth-tests", level: .error)
    static let refusal = ParseError(TriggerFailure.scriptFailed, "Not today.")

    static func withRouter(_ runner: InMemoryTriggerRunner,
                           _ body: @Sendable (AuthRouter, CloudTriggers, PostgresPool) async throws -> Void) async throws {
        let registry = TriggerRegistry(runner: runner, logger: logger)
        await registry.reload()
        let cloud = CloudTriggers(service: .auth, registry: registry, runner: runner)
        try await ScratchDatabase.withPool("auth", migrations: AuthService.migrations, poolSize: 2,
                                           logger: logger) { pool in
            let router = AuthRouter(pool: pool, settings: try AuthSettings.fromEnvironment(Environment([:])),
                                    includes: PointerIncludes(fetch: { _, _, _, _ in [:] }))
            try await body(router, cloud, pool)
        }
    }

    static func call(_ router: AuthRouter, _ cloud: CloudTriggers, _ method: String, _ path: String, _ body: String? = nil,
                     as identity: Identity = .anonymous, context: JSONValue? = nil) async throws -> JSONValue {
        let request = RESTRequest(method: method, path: path, query: [:], body: body, serverURL: "http://127.0.0.1/parse",
                                  headers: ["user-agent": "tests"], ip: "127.0.0.9", context: context)
        let command = Command(type: RESTRequest.type, requestId: "r1", identity: identity, payload: request)
        let response = try await router.handle(AuthRequest(command, logger: logger, cloud: cloud))
        return JSONValue.parse(response.body) ?? .null
    }

    static func triggerRows(_ pool: PostgresPool) async throws -> [JSONValue] {
        try await pool.query("SELECT payload::text AS payload FROM outbox WHERE routing_key LIKE 'cloud.trigger.%' ORDER BY id")
            .rows.compactMap { JSONValue.parse($0["payload"] ?? "") }
    }

    @Test func aSignupBeforeSaveChangesAFieldAndNeverSeesThePassword() async throws {
        let runner = InMemoryTriggerRunner()
        runner.register(.beforeSave, "_User") { trigger in
            var object = trigger.object?.objectValue ?? [:]
            object["nickname"] = .string("Cat person")
            object["password"] = .string("stolen")
            return TriggerResult(object: .object(object))
        }
        try await Self.withRouter(runner) { router, cloud, _ in
            let made = try await Self.call(router, cloud, "POST", "users", #"{"username":"ann","password":"secret1"}"#,
                                           context: .object(["via": .string("signup")]))
            #expect(made["nickname"] == .string("Cat person"))
            let seen = try #require(runner.calls.first?.trigger)
            #expect(seen.object?["username"] == .string("ann"))
            #expect(seen.object?["password"] == nil)
            #expect(seen.object?["className"] == .string("_User"))
            #expect(seen.context == .object(["via": .string("signup")]))
            // The trigger's "password" was not taken: the client's still logs in.
            let login = try await Self.call(router, cloud, "POST", "login", #"{"username":"ann","password":"secret1"}"#)
            #expect(login["nickname"] == .string("Cat person"))
        }
    }

    @Test func aRefusingBeforeSaveCreatesNoUser() async throws {
        let runner = InMemoryTriggerRunner()
        runner.register(.beforeSave, "_User") { _ in throw Self.refusal }
        try await Self.withRouter(runner) { router, cloud, pool in
            await #expect(throws: Self.refusal) {
                _ = try await Self.call(router, cloud, "POST", "users", #"{"username":"bob","password":"secret1"}"#)
            }
            let users = try await pool.query("SELECT count(*) AS n FROM users")
            #expect(users.first?["n"] == "0")
        }
    }

    @Test func beforeLoginRefusesALoginAndAfterLoginAndLogoutAreQueued() async throws {
        let runner = InMemoryTriggerRunner()
        try await Self.withRouter(runner) { router, cloud, pool in
            let made = try await Self.call(router, cloud, "POST", "users", #"{"username":"cy","password":"secret1"}"#)
            let userId = try #require(made["objectId"]?.stringValue)
            runner.register(.beforeLogin, "_User")
            runner.register(.afterLogin, "_User")
            runner.register(.afterLogout, "_Session")
            await cloud.registry.reload()
            let login = try await Self.call(router, cloud, "POST", "login", #"{"username":"cy","password":"secret1"}"#)
            let token = try #require(login["sessionToken"]?.stringValue)
            _ = try await Self.call(router, cloud, "POST", "logout", as: Identity(userId: userId, sessionToken: token))
            let rows = try await Self.triggerRows(pool)
            #expect(rows.compactMap { $0["payload"]?["key"]?["triggerName"]?.stringValue } == ["afterLogin", "afterLogout"])
            #expect(rows.first?["identity"]?["userId"] == .string(userId))
            #expect(rows.first?["payload"]?["object"]?["username"] == .string("cy"))
            #expect(rows.last?["payload"]?["object"]?["user"]?["objectId"] == .string(userId))

            runner.register(.beforeLogin, "_User") { _ in throw Self.refusal }
            await #expect(throws: Self.refusal) {
                _ = try await Self.call(router, cloud, "POST", "login", #"{"username":"cy","password":"secret1"}"#)
            }
            // The refused login opened no session and queued no afterLogin.
            let sessions = try await pool.query("SELECT count(*) AS n FROM sessions WHERE user_id = $1", [userId])
            #expect(sessions.first?["n"] == "1")
            let after = try await Self.triggerRows(pool)
            #expect(after.count == 2)
            #expect(runner.calls.filter { $0.trigger.key.triggerName == .beforeLogin }.count == 2)
        }
    }

    @Test func afterSaveOfAUserIsQueuedWithItsSignupAndItsUpdates() async throws {
        let runner = InMemoryTriggerRunner()
        runner.register(.afterSave, "_User")
        try await Self.withRouter(runner) { router, cloud, pool in
            let made = try await Self.call(router, cloud, "POST", "users", #"{"username":"dee","password":"secret1","age":3}"#)
            let id = try #require(made["objectId"]?.stringValue)
            _ = try await Self.call(router, cloud, "PUT", "users/\(id)", #"{"age":4}"#, as: .master)
            let rows = try await Self.triggerRows(pool)
            #expect(rows.count == 2)
            #expect(rows.first?["payload"]?["object"]?["username"] == .string("dee"))
            #expect(rows.first?["payload"]?["object"]?["age"] == .number(3))
            #expect(rows.first?["payload"]?["object"]?["password"] == nil)
            #expect(rows.last?["payload"]?["original"]?["age"] == .number(3))
            #expect(rows.last?["payload"]?["object"]?["age"] == .number(4))
            #expect(rows.last?["payload"]?["object"]?["objectId"] == .string(id))
            #expect(runner.calls.isEmpty)
        }
    }
}
