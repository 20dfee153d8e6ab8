import Contracts
import ParseWire
import Runtime
import ServiceKit
import Storage
import Testing
@testable import PostsCore

/// posts' trigger hook points against a scratch database, with Cloud Code replaced by `InMemoryTriggerRunner`.
@Suite(.serialized, .enabled(if: PostsDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL (run with `deploy/stack test`)"))
struct ObjectTriggersTests {
    static let logger = Logger(service: "posts-tests", level: .error)
    static let refusal = ParseError(TriggerFailure.scriptFailed, "Cats need a name.")

    static func cloud(_ runner: InMemoryTriggerRunner) async -> CloudTriggers {
        let registry = TriggerRegistry(runner: runner, logger: logger)
        await registry.reload()
        return CloudTriggers(service: .posts, registry: registry, runner: runner)
    }

    static func call(_ pool: PostgresPool, _ cloud: CloudTriggers, _ method: String, _ path: String, _ body: String? = nil,
                     query: [String: String] = [:], as identity: Identity = Identity(userId: "u1"),
                     context: JSONValue? = nil) async throws -> JSONValue {
        let request = RESTRequest(method: method, path: path, query: query, body: body, serverURL: "http://127.0.0.1:1337/parse",
                                  headers: ["user-agent": "tests"], ip: "127.0.0.9", context: context)
        let requestContext = RequestContext(identity: identity, serverURL: request.serverURL, configuration: PostsConfiguration(),
                                            requestId: "r-\(method)", cloud: cloud, triggerRequest: TriggerRequestInfo(request))
        let response = try await pool.withConnection { connection in
            try await PostsHandler(context: requestContext).handle(request, on: connection)
        }
        return JSONValue.parse(response.body) ?? .null
    }

    static func triggerRows(_ pool: PostgresPool) async throws -> [PostgresRow] {
        try await pool.query("SELECT routing_key, payload::text AS payload FROM outbox WHERE routing_key LIKE 'cloud.trigger.%' ORDER BY id").rows
    }

    @Test func beforeSaveChangesAFieldThatIsStoredAndAnswered() async throws {
        let runner = InMemoryTriggerRunner()
        runner.register(.beforeSave, "Cat") { trigger in
            var object = trigger.object?.objectValue ?? [:]
            object["name"] = .string((object["name"]?.stringValue ?? "").uppercased())
            return TriggerResult(object: .object(object))
        }
        let cloud = await Self.cloud(runner)
        try await PostsDatabase.withScratch { pool in
            let context = JSONValue.object(["from": .string("test")])
            let made = try await Self.call(pool, cloud, "POST", "classes/Cat", #"{"name":"tom","age":3}"#, context: context)
            #expect(made["name"] == .string("TOM"))
            let id = try #require(made["objectId"]?.stringValue)
            let stored = try await Self.call(pool, cloud, "GET", "classes/Cat/\(id)")
            #expect(stored["name"] == .string("TOM"))
            #expect(stored["age"] == .number(3))

            let call = try #require(runner.calls.first)
            #expect(call.trigger.object?["className"] == .string("Cat"))
            #expect(call.trigger.object?["name"] == .string("tom"))
            #expect(call.trigger.original == nil)
            #expect(call.trigger.context == context)
            #expect(call.trigger.ip == "127.0.0.9")
            #expect(call.trigger.headers["user-agent"] == "tests")
            #expect(call.identity.userId == "u1")
        }
    }

    @Test func anUpdateShowsTheTriggerTheOriginalAndTheChangeApplied() async throws {
        let runner = InMemoryTriggerRunner()
        let cloud = await Self.cloud(runner)
        try await PostsDatabase.withScratch { pool in
            let made = try await Self.call(pool, cloud, "POST", "classes/Cat", #"{"lives":9}"#)
            let id = try #require(made["objectId"]?.stringValue)
            runner.register(.beforeSave, "Cat")
            await cloud.registry.reload()
            _ = try await Self.call(pool, cloud, "PUT", "classes/Cat/\(id)", #"{"lives":{"__op":"Increment","amount":-1}}"#)
            let call = try #require(runner.calls.last)
            #expect(call.trigger.original?["lives"] == .number(9))
            #expect(call.trigger.object?["lives"] == .number(8))
            #expect(call.trigger.object?["objectId"] == .string(id))
            let stored = try await Self.call(pool, cloud, "GET", "classes/Cat/\(id)")
            #expect(stored["lives"] == .number(8))
        }
    }

    @Test func aRefusingBeforeSaveStoresNothingAndAnswersItsError() async throws {
        let runner = InMemoryTriggerRunner()
        runner.register(.beforeSave, "Cat") { _ in throw Self.refusal }
        runner.register(.afterSave, "Cat")
        let cloud = await Self.cloud(runner)
        try await PostsDatabase.withScratch { pool in
            await #expect(throws: Self.refusal) {
                _ = try await Self.call(pool, cloud, "POST", "classes/Cat", #"{"name":"tom"}"#)
            }
            // Nothing was stored, and no afterSave was queued.
            let found = try await Self.call(pool, cloud, "GET", "classes/Cat", as: .master)
            #expect(found["results"] == .array([]))
            let rows = try await Self.triggerRows(pool)
            #expect(rows.isEmpty)
        }
    }

    @Test func aRefusingBeforeDeleteKeepsTheObject() async throws {
        let runner = InMemoryTriggerRunner()
        let cloud = await Self.cloud(runner)
        try await PostsDatabase.withScratch { pool in
            let made = try await Self.call(pool, cloud, "POST", "classes/Cat", #"{"name":"tom"}"#)
            let id = try #require(made["objectId"]?.stringValue)
            runner.register(.beforeDelete, "Cat") { _ in throw Self.refusal }
            await cloud.registry.reload()
            await #expect(throws: Self.refusal) {
                _ = try await Self.call(pool, cloud, "DELETE", "classes/Cat/\(id)")
            }
            #expect(try await Self.call(pool, cloud, "GET", "classes/Cat/\(id)")["name"] == .string("tom"))
            #expect(runner.calls.first?.trigger.object?["name"] == .string("tom"))
        }
    }

    @Test func beforeFindChangesTheQueryAndAfterFindTheResults() async throws {
        let runner = InMemoryTriggerRunner()
        let cloud = await Self.cloud(runner)
        try await PostsDatabase.withScratch { pool in
            for n in 1...4 { _ = try await Self.call(pool, cloud, "POST", "classes/Cat", #"{"n":\#(n)}"#) }
            runner.register(.beforeFind, "Cat") { trigger in
                var query = trigger.query?.objectValue ?? [:]
                query["where"] = .object(["n": .object(["$gte": .number(3)])])
                return TriggerResult(query: .object(query))
            }
            runner.register(.afterFind, "Cat") { trigger in
                TriggerResult(objects: (trigger.objects ?? []).map { object in
                    var fields = object.objectValue ?? [:]
                    fields["seen"] = .bool(true)
                    return .object(fields)
                })
            }
            await cloud.registry.reload()
            let found = try await Self.call(pool, cloud, "GET", "classes/Cat", query: ["order": "n"])
            let results = found["results"]?.arrayValue ?? []
            #expect(results.compactMap { $0["n"]?.numberValue } == [3, 4])
            #expect(results.allSatisfy { $0["seen"] == .bool(true) && $0["className"] == nil })
            let asked = try #require(runner.calls.first { $0.trigger.key.triggerName == .beforeFind })
            #expect(asked.trigger.query?["order"] == .string("n"))
        }
    }

    @Test func afterSaveAndAfterDeleteAreQueuedInTheWritesTransaction() async throws {
        let runner = InMemoryTriggerRunner()
        runner.register(.afterSave, "Cat")
        runner.register(.afterDelete, "Cat")
        let cloud = await Self.cloud(runner)
        try await PostsDatabase.withScratch { pool in
            let made = try await Self.call(pool, cloud, "POST", "classes/Cat", #"{"name":"tom"}"#,
                                           context: .object(["k": .number(1)]))
            let id = try #require(made["objectId"]?.stringValue)
            _ = try await Self.call(pool, cloud, "PUT", "classes/Cat/\(id)", #"{"name":"tim"}"#)
            _ = try await Self.call(pool, cloud, "DELETE", "classes/Cat/\(id)")
            let rows = try await Self.triggerRows(pool)
            #expect(rows.map { $0["routing_key"] ?? "" }
                    == ["cloud.trigger.posts.afterSave.Cat", "cloud.trigger.posts.afterSave.Cat", "cloud.trigger.posts.afterDelete.Cat"])
            let commands = rows.compactMap { JSONValue.parse($0["payload"] ?? "") }
            #expect(commands.allSatisfy { $0["type"] == .string(RunTrigger.type) })
            #expect(commands[0]["payload"]?["object"]?["name"] == .string("tom"))
            #expect(commands[0]["payload"]?["context"] == .object(["k": .number(1)]))
            #expect(commands[1]["payload"]?["original"]?["name"] == .string("tom"))
            #expect(commands[1]["payload"]?["object"]?["name"] == .string("tim"))
            #expect(commands.allSatisfy { $0["payload"]?["eventId"]?.stringValue != nil })
            #expect(commands[0]["identity"]?["userId"] == .string("u1"))
            // after* triggers leave only through the outbox: none was called directly.
            #expect(runner.calls.isEmpty)
        }
    }

    @Test func aClassWithoutTriggersCallsNothingAndQueuesNothing() async throws {
        let runner = InMemoryTriggerRunner()
        runner.register(.beforeSave, "Dog")
        runner.register(.afterSave, "Dog")
        let cloud = await Self.cloud(runner)
        let listed = runner.listCount
        try await PostsDatabase.withScratch { pool in
            let made = try await Self.call(pool, cloud, "POST", "classes/Cat", #"{"name":"tom"}"#)
            let id = try #require(made["objectId"]?.stringValue)
            _ = try await Self.call(pool, cloud, "PUT", "classes/Cat/\(id)", #"{"name":"tim"}"#)
            _ = try await Self.call(pool, cloud, "GET", "classes/Cat")
            _ = try await Self.call(pool, cloud, "DELETE", "classes/Cat/\(id)")
            #expect(runner.calls.isEmpty)
            #expect(runner.listCount == listed)
            #expect(try await Self.triggerRows(pool).isEmpty)
        }
    }

    @Test func cloudUnreachableFailsTheWritesOfAClassWithTriggers() async throws {
        let runner = InMemoryTriggerRunner()
        runner.register(.beforeSave, "Cat")
        let cloud = await Self.cloud(runner)
        runner.setReachable(false)
        try await PostsDatabase.withScratch { pool in
            await #expect(throws: ParseError.self) {
                _ = try await Self.call(pool, cloud, "POST", "classes/Cat", #"{"name":"tom"}"#)
            }
            // Another class is not concerned.
            let dog = try await Self.call(pool, cloud, "POST", "classes/Dog", #"{"name":"rex"}"#)
            #expect(dog["objectId"]?.stringValue != nil)
        }
    }
}
