import Contracts
import Foundation
import ParseWire
import Runtime
import ServiceKit
import Storage
import Testing
@testable import PostsCore

/// Creates sharing a transaction (`CreateBatcher`), against a scratch database. The class's table is locked while
/// the first create waits in its INSERT, so that the next creates queue up behind it and go as one batch.
@Suite(.serialized, .enabled(if: PostsDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL (run with `deploy/stack test`)"))
struct CreateBatcherTests {
    struct Stack {
        var pool: PostgresPool
        var batcher: CreateBatcher
        var schemas = SchemaCache()
        /// Each create runs as the service runs it, checked against its trigger list.
        var cloud: CloudTriggers?

        var behindALock: QueuedBehindALock {
            QueuedBehindALock(pool: pool, mode: "EXCLUSIVE", waiting: { [batcher] in batcher.waitingCount })
        }

        /// The created object's id, or the create's Parse error.
        func create(_ body: String, as identity: Identity = .anonymous) async throws -> Result<String, ParseError> {
            var configuration = PostsConfiguration()
            configuration.allowCustomObjectId = true
            let context = RequestContext(identity: identity, serverURL: "http://127.0.0.1:1337/parse",
                                         configuration: configuration, requestId: "r", cloud: cloud, schemas: schemas,
                                         creates: batcher)
            let request = RESTRequest(method: "POST", path: "classes/Cat", query: [:], body: body, serverURL: context.serverURL)
            let pool = self.pool
            @Sendable func handle() async throws -> RESTResponse {
                try await PostsHandler(context: context).handle(request, connections: .pool(pool))
            }
            do {
                let response = if let cloud { try await cloud.withCurrentRegistrations(handle) } else { try await handle() }
                #expect(response.status == 201)
                return .success(try #require(PostsDatabase.json(response)["objectId"]?.stringValue))
            } catch let error as ParseError {
                return .failure(error)
            }
        }

        func objects() async throws -> [String] {
            try await pool.query("SELECT \"objectId\" FROM classes.\"Cat\" ORDER BY \"objectId\"").rows.compactMap { $0["objectId"] }
        }

        func eventObjectIds() async throws -> [String] {
            try await pool.query("SELECT payload->'data'->>'objectId' AS id FROM outbox ORDER BY 1").rows.compactMap { $0["id"] }
        }
    }

    static func withStack(_ body: (Stack) async throws -> Void) async throws {
        try await PostsDatabase.withScratch { pool in
            let stack = Stack(pool: pool, batcher: CreateBatcher(pool: pool))
            // The class, then its schema in the cache (the create after the one that made the class reads it):
            // creates go together only with a schema known already.
            #expect(try await stack.create(#"{"objectId":"first0001","name":"a"}"#, as: .master) == .success("first0001"))
            #expect(try await stack.create(#"{"objectId":"first0002","name":"b"}"#, as: .master) == .success("first0002"))
            try await body(stack)
        }
    }

    @Test func createsThatArriveTogetherAreWrittenTogetherEachWithItsEvent() async throws {
        try await Self.withStack { stack in
            let names = (1...4).map { "cat \($0)" }
            let answers = try await stack.behindALock.run(queued: 3, first: { try await stack.create(#"{"name":"cat 0"}"#) },
                                                     then: names.dropFirst().map { name in { try await stack.create(#"{"name":"\#(name)"}"#) } })
            let ids = answers.compactMap { try? $0.get() }
            #expect(Set(ids).count == 4)
            #expect(try await stack.objects() == (ids + ["first0001", "first0002"]).sorted())
            #expect(try await stack.eventObjectIds() == (ids + ["first0001", "first0002"]).sorted(), "one event for each object")
            #expect(stack.batcher.waitingCount == 0)
        }
    }

    /// Once the service stops the batches' task (its commands drained first), a create that still comes is not
    /// lost nor left waiting: it is written alone, with its event, and nothing stays queued.
    @Test func createsAfterTheBatchesStoppedAreWrittenAlone() async throws {
        try await Self.withStack { stack in
            #expect(await stack.batcher.tasks.stop() == 0)
            let answers = try await withThrowingTaskGroup(of: Result<String, ParseError>.self) { group in
                for index in 1...3 { group.addTask { try await stack.create(#"{"name":"late \#(index)"}"#) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let ids = answers.compactMap { try? $0.get() }
            #expect(ids.count == 3, "\(answers)")
            #expect(try await stack.objects() == (ids + ["first0001", "first0002"]).sorted())
            #expect(try await stack.eventObjectIds() == (ids + ["first0001", "first0002"]).sorted(), "one event for each object")
            #expect(stack.batcher.waitingCount == 0)
        }
    }

    /// A duplicate objectId aborts the shared transaction: the others of its batch are written alone, and the
    /// duplicate gets its own error.
    @Test func aCreateThatFailsInABatchLeavesTheOthersToBeWrittenAlone() async throws {
        try await Self.withStack { stack in
            let bodies = [#"{"objectId":"other0001"}"#, #"{"objectId":"first0001"}"#, #"{"objectId":"other0002"}"#]
            let answers = try await stack.behindALock.run(queued: 3, first: { try await stack.create(#"{"objectId":"head00001"}"#) },
                                                     then: bodies.map { body in { try await stack.create(body) } })
            #expect(answers.map { try? $0.get() } == ["head00001", "other0001", nil, "other0002"], "\(answers)")
            if case .failure(let error) = answers[2] { #expect(error.code == .duplicateValue) }
            let stored = ["first0001", "first0002", "head00001", "other0001", "other0002"]
            #expect(try await stack.objects() == stored)
            #expect(try await stack.eventObjectIds() == stored, "one event for each object, none for the duplicate")
        }
    }

    /// A create decided with its request's trigger list waits behind a batch while a registration is answered and
    /// the service's list reloaded. Its batch's check runs in the batch's task, not the create's: it must still judge
    /// the list the create was decided with, refuse it, and the create runs again with its new trigger.
    @Test func aCreateDecidedWithAnOlderTriggerListIsRefusedInItsBatch() async throws {
        try await Self.withStack { stack in
            let runner = InMemoryTriggerRunner()
            let registry = TriggerRegistry(runner: runner, logger: PostsDatabase.logger)
            await registry.reload()
            var guarded = stack
            guarded.cloud = CloudTriggers(service: .posts, registry: registry, runner: runner)
            let checked = guarded
            let answers = try await stack.behindALock.run(queued: 1, first: { try await checked.create(#"{"name":"head"}"#) },
                                                     then: [{ try await checked.create(#"{"name":"late"}"#) }]) {
                runner.register(.beforeSave, "Cat")
                _ = try await stack.pool.query("UPDATE cache_generations SET generation = $1 WHERE cache = 'hooks'",
                                               [Int(runner.generation)])
                await registry.reload()
            }
            #expect(answers.allSatisfy { (try? $0.get()) != nil }, "\(answers)")
            #expect(runner.calls.map(\.trigger.key.triggerName) == [.beforeSave], "the late create's trigger, once")
        }
    }
}
