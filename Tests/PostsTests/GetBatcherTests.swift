import Contracts
import ParseWire
import Storage
import Testing
@testable import PostsCore

/// Gets sharing a pipeline (`GetBatcher`), against a scratch database. The class's table is locked while the first
/// get waits in its SELECT, so that the next gets queue up behind it and go as one batch.
@Suite(.serialized, .enabled(if: PostsDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL (run with `deploy/stack test`)"))
struct GetBatcherTests {
    struct Stack {
        var pool: PostgresPool
        var batcher: GetBatcher
        var schemas = SchemaCache()

        var behindALock: QueuedBehindALock {
            QueuedBehindALock(pool: pool, mode: "ACCESS EXCLUSIVE", waiting: { [batcher] in batcher.waitingCount })
        }

        func handle(_ method: String, _ path: String, _ body: String = "", as identity: Identity = .master) async throws
            -> RESTResponse {
            let context = RequestContext(identity: identity, serverURL: "http://127.0.0.1:1337/parse",
                                         configuration: PostsConfiguration(), requestId: "r", schemas: schemas, gets: batcher)
            let request = RESTRequest(method: method, path: path, query: [:], body: body, serverURL: context.serverURL)
            return try await PostsHandler(context: context).handle(request, connections: .pool(pool))
        }

        func create(_ className: String, _ body: String, as identity: Identity = .master) async throws -> String {
            let response = try await handle("POST", "classes/\(className)", body, as: identity)
            return try #require(PostsDatabase.json(response)["objectId"]?.stringValue)
        }

        /// The object's `name`, or the get's Parse error.
        func name(_ className: String, _ objectId: String, as identity: Identity = .anonymous) async throws
            -> Result<String, ParseError> {
            do {
                let response = try await handle("GET", "classes/\(className)/\(objectId)", as: identity)
                return .success(PostsDatabase.json(response)["name"]?.stringValue ?? "")
            } catch let error as ParseError {
                return .failure(error)
            }
        }
    }

    static func withStack(_ body: (Stack, [String]) async throws -> Void) async throws {
        try await PostsDatabase.withScratch { pool in
            let stack = Stack(pool: pool, batcher: GetBatcher(pool: pool))
            let ids = [try await stack.create("Cat", #"{"name":"tom"}"#),
                       try await stack.create("Cat", #"{"name":"felix"}"#),
                       try await stack.create("Cat", #"{"name":"hidden","ACL":{"someone":{"read":true}}}"#)]
            #expect(try await stack.name("Cat", ids[0]) == .success("tom"))
            try await body(stack, ids)
        }
    }

    @Test func getsThatArriveTogetherAreReadTogetherEachWithItsOwnAnswer() async throws {
        try await Self.withStack { stack, ids in
            let answers = try await stack.behindALock.run(queued: 4, first: { try await stack.name("Cat", ids[0]) }, then: [
                { try await stack.name("Cat", ids[1]) },
                { try await stack.name("Cat", ids[2]) },
                { try await stack.name("Cat", "nosuchcat") },
                { try await stack.name("Cat", ids[2], as: .master) },
            ])
            #expect(answers.map { try? $0.get() } == ["tom", "felix", nil, nil, "hidden"], "\(answers)")
            #expect(answers[2] == .failure(ParseError(.objectNotFound, "Object not found.")))
            #expect(answers[3] == .failure(ParseError(.objectNotFound, "Object not found.")))
            #expect(stack.batcher.waitingCount == 0)
        }
    }

    /// A statement that fails fails its whole pipeline: the others of its batch are read alone, and the failing get
    /// gets its own answer.
    @Test func aGetThatFailsInABatchLeavesTheOthersToBeReadAlone() async throws {
        try await Self.withStack { stack, ids in
            let dog = try await stack.create("Dog", #"{"name":"rex"}"#)
            #expect(try await stack.name("Dog", dog) == .success("rex"))
            let answers = try await stack.behindALock.run(queued: 3, first: { try await stack.name("Cat", ids[0]) }, then: [
                { try await stack.name("Cat", ids[1]) },
                {
                    // Its own answer is the statement's failure, as it would be alone.
                    do { return try await stack.name("Dog", dog) } catch { return .failure(ParseError(.internalServerError, "\(error)")) }
                },
                { try await stack.name("Cat", ids[1]) },
            ]) {
                // Behind the cached schema's back: the Dog get's statement now fails.
                _ = try await stack.pool.query("ALTER TABLE classes.\"Dog\" RENAME TO \"Gone\"")
            }
            #expect(answers.map { try? $0.get() } == ["tom", "felix", nil, "felix"], "\(answers)")
        }
    }

    /// A get that queues behind a batch under way is read in a later one: it sees what was answered before it came,
    /// also what was written after the batch under way began.
    @Test func aGetSeesTheWritesAnsweredBeforeItCame() async throws {
        try await Self.withStack { stack, ids in
            let first = try await stack.create("Dog", #"{"name":"first"}"#)
            #expect(try await stack.name("Dog", first) == .success("first"), "the Dog schema is cached")
            let answers = try await stack.behindALock.run(queued: 1, first: { try await stack.name("Cat", ids[0]) }, then: [
                {
                    let rex = try await stack.create("Dog", #"{"name":"rex"}"#)
                    return try await stack.name("Dog", rex)
                },
            ])
            #expect(answers.map { try? $0.get() } == ["tom", "rex"], "\(answers)")
        }
    }

    /// A batch whose connection is lost (its backend ended while the batch waited for a lock), a fault of the
    /// database rather than of a statement, fails as a whole: each of its gets is read alone, on another
    /// connection, and gets its object.
    @Test func aBatchWhoseConnectionIsLostLeavesItsGetsToBeReadAlone() async throws {
        try await Self.withStack { stack, ids in
            let pool = stack.pool
            let dogs = [try await stack.create("Dog", #"{"name":"rex"}"#), try await stack.create("Dog", #"{"name":"fido"}"#)]
            #expect(try await stack.name("Dog", dogs[0]) == .success("rex"), "the Dog schema is cached")
            // The Cat get holds the batch under way while both Dog gets queue behind it.
            let cats = try await QueuedBehindALock.lock("Cat", in: "ACCESS EXCLUSIVE", pool: pool)
            let head = Task { try await stack.name("Cat", ids[0]) }
            try await QueuedBehindALock.waitUntil("the Cat get waits for its lock") {
                try await QueuedBehindALock.waits(for: "Cat", pool: pool) == 1
            }
            let rest = dogs.map { dog in Task { try await stack.name("Dog", dog) } }
            try await QueuedBehindALock.waitUntil("both Dog gets wait for the batch") { stack.batcher.waitingCount == 2 }
            // Their batch then waits for the Dog lock, and its backend ends there.
            let dogLock = try await QueuedBehindALock.lock("Dog", in: "ACCESS EXCLUSIVE", pool: pool)
            try await cats.release()
            #expect(try await head.value == .success("tom"))
            try await QueuedBehindALock.waitUntil("the Dog batch waits for its lock") {
                try await QueuedBehindALock.waits(for: "Dog", pool: pool) == 1
            }
            let ended = try await pool.query("""
                SELECT count(pg_terminate_backend(pid)) AS n FROM pg_locks WHERE NOT granted
                  AND relation = 'classes."Dog"'::regclass
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                """).first?.int("n")
            #expect(ended == 1)
            try await dogLock.release()
            var answers: [Result<String, ParseError>] = []
            for task in rest { answers.append(try await task.value) }
            #expect(answers.map { try? $0.get() } == ["rex", "fido"], "\(answers)")
        }
    }

    /// Once the service stops the batches' task, a get that still comes is read alone.
    @Test func getsAfterTheBatchesStoppedAreReadAlone() async throws {
        try await Self.withStack { stack, ids in
            #expect(await stack.batcher.tasks.stop() == 0)
            let answer = try await stack.name("Cat", ids[1])
            #expect(answer == .success("felix"))
            #expect(stack.batcher.waitingCount == 0)
        }
    }
}
