import Contracts
import Foundation
import HTTPServer
import Messaging
import ParseWire
import Runtime
import TestDoubles
import Testing
@testable import GatewayCore

/// The responder's round trips, over an in-memory bus whose services answer as the tests say.
@Suite struct GatewayResponderBusTests {
    private static func responder(_ bus: InMemoryBus) throws -> GatewayResponder {
        let configuration = try GatewayConfiguration.fromEnvironment(Environment([
            "PARSE_SERVER_APPLICATION_ID": "app", "PARSE_AMQP_URL": "amqp://guest:guest@127.0.0.1:1/",
        ]))
        return GatewayResponder(configuration: configuration, client: RPCClient(bus: bus),
                                logger: Logger(service: "gateway-test", level: .error))
    }

    private static func request(_ method: String, _ path: String, body: String = "", appId: String = "app") -> HTTPRequest {
        HTTPRequest(method: method, path: path,
                    headers: ["X-Parse-Application-Id": appId, "Content-Type": "application/json",
                              "X-Parse-Request-Id": "req-1"],
                    body: Array(body.utf8), remoteAddress: "203.0.113.9")
    }

    private static func command<Payload: Codable & Sendable>(_ message: OutgoingMessage, _ type: Payload.Type) throws
        -> Command<Payload> {
        try JSONDecoder().decode(Command<Payload>.self, from: Data(message.body))
    }

    @Test func aVoteGoesToVotesAsTheCastCommandAndItsAnswerIsTheClients() async throws {
        let bus = InMemoryBus()
        bus.serve(.votes, CastVote.type, CastVote.self) { command in
            RESTResponse(status: 200, body: #"{"votes":3,"updatedAt":"2026-11-30T14:02:51.492Z"}"#)
        }
        let response = try await Self.responder(bus).respond(
            to: Self.request("PUT", "/parse/classes/Cat/abc", body: #"{"votes":{"__op":"Increment","amount":1}}"#))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"votes":3,"updatedAt":"2026-11-30T14:02:51.492Z"}"#)
        let call = try #require(bus.calls.first)
        #expect(bus.calls.count == 1)
        #expect(call.routingKey == ServiceName.votes.commandQueue && call.type == "votes.cast.v1")
        let sent = try Self.command(call, CastVote.self)
        #expect(sent.payload == CastVote(className: "Cat", objectId: "abc", field: "votes", kind: .increment, value: 1))
        #expect(sent.requestId == "req-1")
    }

    @Test func aReadGoesToPostsAsRESTAndItsStatusAndBodyPassThrough() async throws {
        let bus = InMemoryBus()
        bus.serve(.posts, RESTRequest.type, RESTRequest.self) { command in
            RESTResponse(status: 200, body: #"{"results":[],"path":"\#(command.payload.path)"}"#)
        }
        let response = try await Self.responder(bus).respond(to: Self.request("GET", "/parse/classes/Cat"))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"results":[],"path":"classes/Cat"}"#)
        #expect(try Self.command(#require(bus.calls.first), RESTRequest.self).payload.method == "GET")
    }

    @Test func aServicesParseErrorBecomesItsStatusAndBody() async throws {
        let bus = InMemoryBus()
        bus.serve(.posts, RESTRequest.type, RESTRequest.self) { _ -> RESTResponse in
            throw ParseError(.objectNotFound, "Object not found.")
        }
        let response = try await Self.responder(bus).respond(to: Self.request("GET", "/parse/classes/Cat/nope"))
        #expect(response.status == 404)
        let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        #expect(body?["code"] as? Int == 101 && body?["error"] as? String == "Object not found.")
    }

    /// The command joins the client's trace as its next hop; without a `traceparent`, a new trace starts.
    @Test func theCommandCarriesTheClientsTrace() async throws {
        let bus = InMemoryBus()
        bus.serve(.posts, RESTRequest.type, RESTRequest.self) { _ in RESTResponse(status: 200, body: "{}") }
        var request = Self.request("GET", "/parse/classes/Cat")
        request.headers.add("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        _ = try await Self.responder(bus).respond(to: request)
        _ = try await Self.responder(bus).respond(to: Self.request("GET", "/parse/classes/Cat"))
        let sent = bus.calls.compactMap { $0.headers["traceparent"].flatMap(TraceContext.init(traceparent:)) }
        #expect(sent.count == 2)
        #expect(sent.first?.traceId == "4bf92f3577b34da6a3ce929d0e0e4736" && sent.first?.flags == "01")
        #expect(sent.first?.spanId != "00f067aa0ba902b7")
        #expect(sent.last?.traceId != "4bf92f3577b34da6a3ce929d0e0e4736" && sent.last?.traceId.count == 32)
    }

    /// Only the app registry is asked about an id that is not the stack's own app's.
    @Test func aWrongApplicationIdIsRefusedWithoutACallToTheService() async throws {
        let bus = InMemoryBus()
        bus.serve(.auth, ResolveApp.type, ResolveApp.self) { _ -> AppRecord in
            throw ParseError(.objectNotFound, "No app has the id other.")
        }
        let response = try await Self.responder(bus).respond(to: Self.request("GET", "/parse/classes/Cat", appId: "other"))
        #expect(response.status == 403)
        #expect(bus.calls.map(\.type) == [ResolveApp.type])
        let invalid = try await Self.responder(bus).respond(to: Self.request("GET", "/parse/classes/Cat", appId: "not an id"))
        #expect(invalid.status == 403)
        #expect(bus.calls.count == 1, "an id no app can have is refused without asking")
    }

    @Test func theJavaScriptSDKsMethodOverrideReachesTheService() async throws {
        let bus = InMemoryBus()
        bus.serve(.posts, RESTRequest.type, RESTRequest.self) { command in
            RESTResponse(status: 200, body: #"{"method":"\#(command.payload.method)"}"#)
        }
        let responder = try Self.responder(bus)
        let request = Self.request("POST", "/parse/classes/Cat/abc", body: #"{"_method":"PUT","name":"Tom"}"#)
        let response = await responder.respond(to: request)
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"method":"PUT"}"#)
    }

    @Test func aRouteOutsideTheMountIsAnsweredWithoutReadingTheBodyOrCalling() async throws {
        let bus = InMemoryBus()
        let responder = try Self.responder(bus)
        let request = Self.request("POST", "/elsewhere", body: "{not json")
        #expect(responder.route(of: request) == GatewayRoute(method: "POST", path: nil))
        let response = await responder.respond(to: request, route: responder.route(of: request))
        #expect(response.status == 404)
        #expect(bus.calls.isEmpty)
    }
    /// Another app's request: its keys are the registry's (asked of auth, as the stack's own app), and its command
    /// carries the app; an id the registry does not know is refused as parse-server refuses a wrong one.
    @Test func anotherAppsRequestIsCheckedWithItsKeysAndItsCommandCarriesTheApp() async throws {
        let bus = InMemoryBus()
        bus.serve(.auth, ResolveApp.type, ResolveApp.self) { command -> AppRecord in
            guard command.payload.applicationId == "paws" else { throw ParseError(.objectNotFound, "No app has the id.") }
            return AppRecord(name: "Paws", applicationId: "paws", masterKey: "pawsMaster", clientKey: "c", restApiKey: "rest",
                             javascriptKey: "js", dotNetKey: "net", createdAt: "2026-12-06T00:00:00.000Z")
        }
        bus.serve(.posts, RESTRequest.type, RESTRequest.self) { _ in RESTResponse(status: 200, body: #"{"results":[]}"#) }
        let responder = try Self.responder(bus)
        var request = Self.request("GET", "/parse/classes/Cat", appId: "paws")
        #expect(await responder.respond(to: request).status == 403, "no key")
        request.headers.add("X-Parse-REST-API-Key", "rest")
        #expect(await responder.respond(to: request).status == 200)
        let sent = try #require(bus.calls.last)
        #expect(sent.routingKey == ServiceName.posts.commandQueue && sent.headers[AppContext.header] == "paws")
        let lookup = try #require(bus.calls.first { $0.type == ResolveApp.type })
        #expect(lookup.headers[AppContext.header] == nil, "the registry is the stack's own app's")

        var ghost = Self.request("GET", "/parse/classes/Cat", appId: "ghost")
        ghost.headers.add("X-Parse-REST-API-Key", "rest")
        #expect(await responder.respond(to: ghost).status == 403)
        // The stack's own app sends no app at all.
        _ = await responder.respond(to: Self.request("GET", "/parse/classes/Cat"))
        #expect(bus.calls.last?.headers[AppContext.header] == nil)
        // Within the lease the registry is not asked again.
        let lookups = bus.calls.filter { $0.type == ResolveApp.type }.count
        _ = await responder.respond(to: request)
        #expect(bus.calls.filter { $0.type == ResolveApp.type }.count == lookups)
    }
}
