import Contracts
import Foundation
import HTTPServer
import Messaging
import ParseWire
import Runtime
import TestDoubles
import Testing
@testable import GatewayCore

/// `/graphql` over an in-memory bus: the schema read with the master key, each field's call sent as the client,
/// and every call held to what the gateway checks of a REST request.
@Suite struct GatewayGraphQLTests {
    static let schemas = #"{"results":[{"className":"Cat","fields":{"objectId":{"type":"String"},"name":{"type":"String"}}}]}"#

    static func responder(_ bus: InMemoryBus, _ settings: [String: String] = [:]) throws -> GatewayResponder {
        let configuration = try GatewayConfiguration.fromEnvironment(Environment([
            "PARSE_SERVER_APPLICATION_ID": "app", "PARSE_AMQP_URL": "amqp://guest:guest@127.0.0.1:1/",
        ].merging(settings) { $1 }))
        return GatewayResponder(configuration: configuration, client: RPCClient(bus: bus),
                                logger: Logger(service: "gateway-test", level: .error))
    }

    static func serve(_ bus: InMemoryBus) {
        bus.serve(.posts, RESTRequest.type, RESTRequest.self) { command in
            switch command.payload.path {
            case "schemas": RESTResponse(status: 200, body: schemas)
            case "graphql-config": RESTResponse(status: 200, body: "{}")
            default: RESTResponse(status: 200, body: #"{"results":[{"objectId":"c1","name":"Tom"}],"count":1}"#)
            }
        }
        bus.serve(.cloud, RESTRequest.type, RESTRequest.self) { _ in RESTResponse(status: 200, body: #"{"results":[]}"#) }
    }

    static func graphQL(_ query: String, path: String = "/graphql", appId: String? = "app") -> HTTPRequest {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let appId { headers.set("X-Parse-Application-Id", appId) }
        let body = try! JSONSerialization.data(withJSONObject: ["query": query])
        return HTTPRequest(method: "POST", path: path, headers: headers, body: Array(body), remoteAddress: "203.0.113.9")
    }

    static func commands(_ bus: InMemoryBus) throws -> [Command<RESTRequest>] {
        try bus.calls.filter { $0.type == RESTRequest.type }.map { try JSONDecoder().decode(Command<RESTRequest>.self, from: Data($0.body)) }
    }

    @Test func aFindIsReadAsTheClientAndTheSchemaWithTheMasterKey() async throws {
        let bus = InMemoryBus()
        Self.serve(bus)
        let response = try await Self.responder(bus).respond(to: Self.graphQL("{ cats { count edges { node { name } } } }", path: "/graphql/"))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"data":{"cats":{"count":1,"edges":[{"node":{"name":"Tom"}}]}}}"#)
        let sent = try Self.commands(bus)
        let schemaReads = sent.filter { ["schemas", "cloud_code/functions", "graphql-config"].contains($0.payload.path) }
        #expect(schemaReads.count == 3 && schemaReads.allSatisfy { $0.identity.isMaster })
        let find = try #require(sent.first { $0.payload.path == "classes/Cat" })
        #expect(!find.identity.isMaster && find.payload.query["count"] == "1")
    }

    @Test func aSchemaThatCannotBeReadAnswers503WithRetryAfter() async throws {
        let bus = InMemoryBus()
        bus.serve(.posts, RESTRequest.type, RESTRequest.self) { _ in
            RESTResponse(status: 503, body: #"{"code":100,"error":"The database is unavailable."}"#)
        }
        bus.serve(.cloud, RESTRequest.type, RESTRequest.self) { _ in RESTResponse(status: 200, body: #"{"results":[]}"#) }
        let response = try await Self.responder(bus).respond(to: Self.graphQL("{ health }"))
        #expect(response.status == 503)
        #expect(response.headers["Retry-After"] == "1")
        #expect(String(decoding: response.body, as: UTF8.self)
            == #"{"errors":[{"message":"The database is unavailable.","extensions":{"code":100}}]}"#)
    }

    @Test func theKeysAreCheckedBeforeAnything() async throws {
        let bus = InMemoryBus()
        Self.serve(bus)
        let response = try await Self.responder(bus).respond(to: Self.graphQL("{ health }", appId: nil))
        #expect(response.status == 403)
        #expect(bus.calls.isEmpty)
    }

    @Test func eachCallIsHeldToTheRouteAllowList() async throws {
        let bus = InMemoryBus()
        Self.serve(bus)
        let responder = try Self.responder(bus, ["PARSE_SERVER_ROUTE_ALLOW_LIST": "classes/Dog"])
        let response = await responder.respond(to: Self.graphQL("{ cats { count } }"))
        let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        let error = (body?["errors"] as? [[String: Any]])?.first
        #expect(error?["message"] as? String == "Route 'classes/Cat' is not allowed by the routeAllowList option.")
        #expect((error?["extensions"] as? [String: Any])?["code"] as? Int == 119)
        #expect(try Self.commands(bus).allSatisfy { $0.payload.path != "classes/Cat" })
    }
}

extension GatewayGraphQLTests {
    @Test func oneRequestMakesAtMostItsNumberOfCalls() async throws {
        let bus = InMemoryBus()
        Self.serve(bus)
        let responder = try Self.responder(bus, ["PARSE_GRAPHQL_MAX_CALLS": "1"])
        let response = await responder.respond(to: Self.graphQL("{ first: cats { count } second: cats { count } }"))
        let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        // The root fields are non-null, as parse-server has them: the second's error nulls the data.
        let errors = (body?["errors"] as? [[String: Any]]) ?? []
        #expect(errors.count == 1)
        let error = errors.first
        // The two run together: either may be the one past the bound.
        #expect([["first"], ["second"]].contains((error?["path"] as? [String]) ?? []))
        #expect((error?["extensions"] as? [String: Any])?["code"] as? Int == 155)
        #expect(try Self.commands(bus).filter { $0.payload.path == "classes/Cat" }.count == 1)
    }
}
