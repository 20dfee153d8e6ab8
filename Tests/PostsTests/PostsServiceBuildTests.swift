import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime
import ServiceKit
import Storage
import TestDoubles
import Testing
@testable import PostsCore

/// The posts service as `main` builds it (`PostsService.build`), its commands sent over an in-memory bus to its
/// router, on a scratch database: the wiring, and how its answers and errors reach the caller.
@Suite(.serialized, .enabled(if: PostsDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL (run with `deploy/stack test`)"))
struct PostsServiceBuildTests {
    private static func configuration() throws -> PostsService.Configuration {
        try PostsService.Configuration.fromEnvironment(Environment(["PARSE_SERVER_APPLICATION_ID": "app"]))
    }

    /// A client whose calls to posts are answered by `handlers`, as `CommandServer` answers them.
    private static func client(_ handlers: ServiceHandlers) -> RPCClient {
        let bus = InMemoryBus()
        let router = handlers.router
        bus.serve(ServiceName.posts.commandQueue) { delivery in
            try await router.answer(delivery, logger: PostsDatabase.logger) ?? []
        }
        return RPCClient(bus: bus)
    }

    private static func send(_ client: RPCClient, _ method: String, _ path: String, _ body: String? = nil) async throws
        -> RESTResponse {
        try await client.send(RESTRequest.type,
                              RESTRequest(method: method, path: path, query: [:], body: body, serverURL: "http://x/parse"),
                              to: .posts, requestId: UUID().uuidString, identity: .anonymous, timeout: .seconds(5))
    }

    @Test func theServiceAnswersItsCommandsAndRunsItsJobs() async throws {
        try await PostsDatabase.withScratch { pool in
            let handlers = PostsService.build(configuration: try Self.configuration(), bus: RPCClient(bus: InMemoryBus()),
                                              database: pool)
            #expect(Set(handlers.router.types).isSuperset(of: [RESTRequest.type, ApplyBallots.type, ReportPushResults.type,
                                                                RecordRequestCounts.type]))
            #expect(handlers.jobs.map(\.name).contains("push sender"))
        }
    }

    @Test func aCreatedObjectIsReadBackThroughTheBuiltHandlers() async throws {
        try await PostsDatabase.withScratch { pool in
            let client = Self.client(PostsService.build(configuration: try Self.configuration(),
                                                        bus: RPCClient(bus: InMemoryBus()), database: pool))
            let created = try await Self.send(client, "POST", "classes/BuiltCat", #"{"name":"Tom"}"#)
            #expect(created.status == 201)
            let id = try #require(PostsDatabase.json(created)["objectId"]?.stringValue)
            let read = try await Self.send(client, "GET", "classes/BuiltCat/\(id)")
            #expect(read.status == 200)
            #expect(PostsDatabase.json(read)["name"]?.stringValue == "Tom")
        }
    }

    @Test func theHandlersParseErrorsReachTheCallerAsThemselves() async throws {
        try await PostsDatabase.withScratch { pool in
            let client = Self.client(PostsService.build(configuration: try Self.configuration(),
                                                        bus: RPCClient(bus: InMemoryBus()), database: pool))
            await #expect(throws: ParseError(.objectNotFound, "Object not found.")) {
                try await Self.send(client, "GET", "classes/NoSuchCat/abc")
            }
            let error = await #expect(throws: ParseError.self) { try await Self.send(client, "POST", "classes/1Bad", "{}") }
            #expect(error?.code == .invalidClassName)
        }
    }
}
