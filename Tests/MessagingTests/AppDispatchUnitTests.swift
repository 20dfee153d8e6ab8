import Contracts
import Foundation
import ParseWire
import Runtime
import Testing
@testable import Messaging

/// Apps besides the stack's own: the app a command works for travels in its envelope, and a service hands it to
/// the handlers made for that app only.
@Suite struct AppDispatchUnitTests {
    static let message = OutgoingMessage(routingKey: "posts", body: [], type: "rest.v1")
    static let logger = Logger(service: "test", level: .error)

    @Test func aCommandCarriesItsAppOnlyWhenItIsNotTheStacksOwn() {
        #expect(Envelope.stamped(Self.message, requestId: "r").headers[AppContext.header] == nil)
        let stamped = AppContext.$current.withValue("paws") { Envelope.stamped(Self.message, requestId: "r") }
        #expect(stamped.headers[AppContext.header] == "paws")
    }

    @Test func anAppsEventsHaveRoutingKeysOfTheirOwn() {
        #expect(AppContext.routingKey("vote.cast.Cat", app: nil) == "vote.cast.Cat")
        #expect(AppContext.routingKey("vote.cast.Cat", app: "paws") == "app.paws.vote.cast.Cat")
        #expect(AppContext.app(ofRoutingKey: "app.paws.vote.cast.Cat") == "paws")
        #expect(AppContext.app(ofRoutingKey: "vote.cast.Cat") == nil && AppContext.app(ofRoutingKey: "app.") == nil)
        #expect(AppContext.app(ofRoutingKey: "application.created.x") == nil)
        #expect(AppContext.everyApp(["vote.*.*"]) == ["vote.*.*", "app.*.vote.*.*"])
        #expect(AppContext.isValidId("Ab_9-x") && !AppContext.isValidId("") && !AppContext.isValidId("a.b")
                && !AppContext.isValidId("a b") && !AppContext.isValidId(String(repeating: "a", count: 41)))
    }

    /// The router of each app answers with that app's name; "ghost" is no app.
    struct Routers: AppRouters {
        func router(for app: String) async throws -> CommandRouter {
            guard app != "ghost" else { throw ParseError(.objectNotFound, "No app has the id ghost.") }
            return AppDispatchUnitTests.router(answering: app)
        }
    }

    static func router(answering name: String) -> CommandRouter {
        var router = CommandRouter()
        router.register("who.v1", Empty.self) { _, _ in [name, AppContext.current ?? "-"] }
        return router
    }

    static func ask(_ router: CommandRouter, app: String?) async throws -> CommandReply<[String]> {
        let command = Command(type: "who.v1", requestId: "r", identity: .anonymous, payload: Empty())
        let delivery = Delivery(body: try JSONCoding.encode(command), routingKey: "posts", messageId: "m", type: "who.v1")
        let body = try await AppContext.$current.withValue(app) { try await router.answer(delivery, logger: logger) }
        return try JSONCoding.decode(CommandReply<[String]>.self, from: try #require(body))
    }

    @Test func eachAppsCommandsReachOnlyItsOwnHandlers() async throws {
        let router = Self.router(answering: "stack").dispatchingByApp(Routers())
        #expect(try await Self.ask(router, app: nil).get() == ["stack", "-"])
        #expect(try await Self.ask(router, app: "paws").get() == ["paws", "paws"])
        #expect(try await Self.ask(router, app: "claws").get() == ["claws", "claws"])
        let ghost = try await Self.ask(router, app: "ghost")
        #expect(throws: ParseError(.objectNotFound, "No app has the id ghost.")) { try ghost.get() }
    }
}
