import AuthCore
import Contracts
import FilesCore
import Foundation
import HTTPServer
import Messaging
import ParseWire
import PostsCore
import Runtime
import ScratchDatabase
import ServiceKit
import Storage
import TestDoubles
import VotesCore
@testable import GatewayCore

/// gateway, auth, posts, votes and files in one process: each service built by the same `build` its `main` calls,
/// on a scratch database of its own (the test stack's PostgreSQL), all of them answering on one in-memory bus;
/// requests go in at the gateway's responder as the HTTP server hands them over. No broker and no other process,
/// so a flow across the services runs in well under a second.
struct InProcessStack: Sendable {
    static let applicationId = "in-process"
    static let masterKey = "in-process-master"
    static let logger = Logger(service: "in-process", level: .error)

    let bus: InMemoryBus
    let gateway: GatewayResponder
    /// The databases by service, for the outbox relays.
    let pools: [ServiceName: PostgresPool]

    /// Starts the stack, runs `body` with it, then closes and drops every database.
    static func run<T: Sendable>(_ body: (InProcessStack) async throws -> T) async throws -> T {
        let environment = Environment(["PARSE_SERVER_APPLICATION_ID": applicationId, "PARSE_SERVER_MASTER_KEY": masterKey,
                                       "PARSE_AMQP_URL": "amqp://guest:guest@127.0.0.1:1/"])
        let bus = InMemoryBus()
        bus.start()
        let calls = RPCClient(bus: bus)
        let databases: [(ServiceName, [Migration])] = [(.auth, AuthService.migrations), (.posts, PostsService.migrations),
                                                        (.votes, VotesService.migrations), (.files, FilesService.migrations)]
        return try await withScratchPools(databases[...]) { pools in
            func pool(_ service: ServiceName) -> PostgresPool { pools[service]! }
            bus.serve(.auth, AuthService.build(configuration: try .fromEnvironment(environment), bus: calls,
                                               database: pool(.auth)).router, logger: logger)
            bus.serve(.posts, PostsService.build(configuration: try .fromEnvironment(environment), bus: calls,
                                                 database: pool(.posts)).router, logger: logger)
            bus.serve(.votes, VotesService.build(configuration: try .fromEnvironment(environment), bus: calls,
                                                 database: pool(.votes)).router, logger: logger)
            bus.serve(.files, FilesService.build(configuration: try .fromEnvironment(environment), bus: calls,
                                                 database: pool(.files)).router, logger: logger)
            let configuration = try GatewayConfiguration.fromEnvironment(environment)
            let gateway = GatewayResponder(
                configuration: configuration, client: calls,
                sessions: AuthSessionResolver(client: calls, configuration: configuration, cacheTimeToLive: .zero,
                                              logger: logger),
                logger: logger)
            return try await body(InProcessStack(bus: bus, gateway: gateway, pools: pools))
        }
    }

    /// A scratch database for each service, migrated as the service's own, for as long as `body` runs.
    private static func withScratchPools<T: Sendable>(
        _ databases: ArraySlice<(ServiceName, [Migration])>, opened: [ServiceName: PostgresPool] = [:],
        _ body: ([ServiceName: PostgresPool]) async throws -> T
    ) async throws -> T {
        guard let (service, migrations) = databases.first else { return try await body(opened) }
        return try await ScratchDatabase.withPool("inproc_\(service.rawValue)", migrations: migrations, poolSize: 4,
                                                  logger: logger) { pool in
            var opened = opened
            opened[service] = pool
            return try await withScratchPools(databases.dropFirst(), opened: opened, body)
        }
    }


    /// A request as the HTTP server hands it to the gateway; the answer's status and its body as JSON.
    func send(_ method: String, _ path: String, query: [String: String] = [:], json body: String? = nil, sessionToken: String? = nil,
              master: Bool = false, contentType: String = "application/json", bytes: [UInt8]? = nil)
        async -> (status: Int, body: JSONValue) {
        var headers: HTTPHeaders = ["X-Parse-Application-Id": Self.applicationId, "Content-Type": contentType]
        if let sessionToken { headers.set("X-Parse-Session-Token", sessionToken) }
        if master { headers.set("X-Parse-Master-Key", Self.masterKey) }
        let request = HTTPRequest(method: method, path: "/parse/" + path,
                                  query: query.sorted { $0.key < $1.key }.map { QueryItem(name: $0.key, value: $0.value) },
                                  headers: headers,
                                  body: bytes ?? Array((body ?? "").utf8), remoteAddress: "127.0.0.1")
        let response = await gateway.respond(to: request)
        return (response.status, JSONValue.parse(response.body) ?? .string(String(decoding: response.body, as: UTF8.self)))
    }

    /// A file's bytes as a browser fetches them, without keys; a file of one part (1 MB) comes whole in the body.
    func download(_ path: String) async -> (status: Int, text: String) {
        let response = await gateway.respond(to: HTTPRequest(method: "GET", path: "/parse/" + path, headers: [:], body: [],
                                                             remoteAddress: "127.0.0.1"))
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    /// Runs `service`'s outbox relay into the bus, as the service host does, until `count` events with
    /// `routingKey` are published (or `timeout` has passed), and returns them. An event may be written a moment
    /// after the answer (votes marks a round's ballots, with their events, in the round after it).
    func events(from service: ServiceName, routingKey: String, count: Int = 1,
                timeout: Duration = .seconds(30)) async throws -> [OutgoingMessage] {
        guard let pool = pools[service] else { return [] }
        let relay = OutboxRelay(pool: pool, publisher: bus, logger: Self.logger, retention: .zero)
        let running = OwnedTasks("relay")
        running.spawn { await relay.run() }
        let deadline = ContinuousClock.now + timeout
        var found = bus.published.filter { $0.routingKey == routingKey }
        while found.count < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            found = bus.published.filter { $0.routingKey == routingKey }
        }
        await running.stop()
        return found
    }
}
