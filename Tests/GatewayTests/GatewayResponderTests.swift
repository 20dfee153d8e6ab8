import Foundation
import HTTPServer
import Messaging
import ParseWire
import Runtime
import Testing
@testable import GatewayCore

/// The synchronous half of the responder: nothing here reaches the broker, so the client is never started.
@Suite struct GatewayResponderTests {
    private static func responder(mount: String = "/parse") throws -> GatewayResponder {
        let configuration = try GatewayConfiguration.fromEnvironment(Environment([
            "PARSE_SERVER_MOUNT_PATH": mount, "PARSE_AMQP_URL": "amqp://guest:guest@127.0.0.1:1/",
        ]))
        let logger = Logger(service: "gateway-test", level: .error)
        let client = RPCClient(url: configuration.amqpURL, name: "gateway-test", eventExchange: "test.events",
                               logger: logger)
        return GatewayResponder(configuration: configuration, client: client, logger: logger)
    }

    private func immediate(_ method: String, _ path: String, mount: String = "/parse") throws -> HTTPResponse? {
        try Self.responder(mount: mount).immediateResponse(to: HTTPRequest(method: method, path: path,
                                                                           remoteAddress: "203.0.113.9"))
    }

    /// Only a file upload takes its body as a stream; every other request, whatever its method, is read whole.
    @Test func onlyAFileUploadStreamsItsBody() throws {
        let responder = try Self.responder()
        let streams = { (method: String, path: String) in
            responder.streamsBody(of: HTTPRequest(method: method, path: path, remoteAddress: "203.0.113.9"))
        }
        #expect(streams("POST", "/parse/files/cat.jpg"))
        for (method, path) in [("GET", "/parse/files/cat.jpg"), ("PUT", "/parse/files/cat.jpg"),
                               ("POST", "/parse/classes/Cat"), ("POST", "/elsewhere/files/cat.jpg"),
                               ("DELETE", "/parse/files/cat.jpg")] {
            #expect(!streams(method, path), "\(method) \(path)")
        }
    }

    @Test(arguments: ["/parse/classes/Cat", "/parse/health", "/elsewhere", "/"])
    func optionsIsAPreflightAnywhere(path: String) throws {
        let response = try #require(try immediate("OPTIONS", path))
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
        #expect(response.headers["Access-Control-Allow-Methods"]?.contains("OPTIONS") == true)
        let allowed = try #require(response.headers["Access-Control-Allow-Headers"])
        for header in ["X-Parse-Application-Id", "X-Parse-Session-Token", "X-Parse-Master-Key", "Content-Type"] {
            #expect(allowed.contains(header))
        }
    }

    @Test(arguments: ["GET", "POST"])
    func healthAnswersWithoutKeys(method: String) throws {
        let response = try #require(try immediate(method, "/parse/health"))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"status":"ok"}"#)
        #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
    }

    @Test func healthUnderTheRootMount() throws {
        let response = try #require(try immediate("GET", "/health", mount: "/"))
        #expect(response.status == 200)
    }

    @Test(arguments: ["/elsewhere", "/parsefoo/health", "/pars", "/api/parse/health", ""])
    func pathOutsideTheMountIsNotFound(path: String) throws {
        let response = try #require(try immediate("GET", path))
        #expect(response.status == 404)
        let error = try JSONDecoder().decode(ParseError.self, from: Data(response.body))
        #expect(error.message.contains("GET \(path)"))
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
    }

    @Test(arguments: [("GET", "/parse/classes/Cat"), ("POST", "/parse/classes/Cat"), ("GET", "/parse/health/ready"),
                      ("GET", "/parse"), ("PUT", "/parse/health"), ("DELETE", "/parse/health"),
                      ("GET", "/parse/unknown/route"), ("POST", "/parse/login")])
    func otherRoutesGoToTheAsyncPath(method: String, path: String) throws {
        #expect(try immediate(method, path) == nil)
    }

    @Test(arguments: [("/parse/classes/Cat", "classes/Cat"), ("/parse", ""), ("/parse/", ""),
                      ("/parse//users/me", "users/me"), ("/parse/health/ready", "health/ready")])
    func routePathIsBelowTheMount(path: String, route: String) throws {
        #expect(try Self.responder().routePath(path) == route)
    }

    @Test(arguments: ["/parsex", "/other/parse", "/", "", "/Parse/classes"])
    func routePathOutsideTheMountIsNil(path: String) throws {
        #expect(try Self.responder().routePath(path) == nil)
    }

    @Test func rootMountTakesEveryPath() throws {
        let responder = try Self.responder(mount: "/")
        #expect(responder.routePath("/classes/Cat") == "classes/Cat")
        #expect(responder.routePath("/") == "")
    }

    @Test func nestedMount() throws {
        let responder = try Self.responder(mount: "/api/v1/")
        #expect(responder.routePath("/api/v1/classes/Cat") == "classes/Cat")
        #expect(responder.routePath("/api/v10/classes/Cat") == nil)
    }
}
