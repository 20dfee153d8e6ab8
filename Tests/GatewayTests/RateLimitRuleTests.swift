import Contracts
@testable import GatewayCore
import ParseWire
import Runtime
import Testing

/// parse-server's `rateLimit` entries as the gateway reads them.
struct RateLimitRuleTests {
    static func rule(_ json: String) throws -> RateLimitRule {
        try #require(try RateLimiter.rules(from: json).first)
    }

    @Test func readsParseServerOptionsWithTheirDefaults() throws {
        let rule = try Self.rule(#"{"requestPath":"/classes/*","requestTimeWindow":1000,"requestCount":3}"#)
        #expect(rule.windowMilliseconds == 1000)
        #expect(rule.requestCount == 3)
        #expect(rule.message == "Too many requests.")
        #expect(rule.zone == .ip)
        #expect(!rule.includeMasterKey && !rule.includeInternalRequests)
        #expect(try RateLimiter.rules(from: nil).isEmpty)
        #expect(try RateLimiter.rules(from: #"[{"requestPath":"*","requestTimeWindow":1,"requestCount":1},"#
                                      + #"{"requestPath":"/login","requestTimeWindow":1,"requestCount":1}]"#).count == 2)
    }

    @Test func refusesUnknownOrMistypedOptions() {
        #expect(throws: ConfigurationError.self) {
            try RateLimiter.rules(from: #"{"requestPath":"*","requestTimeWindow":1,"requestCount":1,"nope":1}"#)
        }
        #expect(throws: ConfigurationError.self) { try RateLimiter.rules(from: #"{"requestPath":"*","requestCount":1}"#) }
        #expect(throws: ConfigurationError.self) {
            try RateLimiter.rules(from: #"{"requestPath":"*","requestTimeWindow":1,"requestCount":1,"zone":"planet"}"#)
        }
        #expect(throws: ConfigurationError.self) { try RateLimiter.rules(from: "not json") }
    }

    @Test func matchesPathsAsExpressRoutes() throws {
        let any = try Self.rule(#"{"requestPath":"/classes/*","requestTimeWindow":1,"requestCount":1}"#)
        let user = Identity()
        #expect(any.applies(method: "GET", path: "classes/Cat", identity: user, remoteAddress: "10.0.0.1"))
        #expect(any.applies(method: "GET", path: "classes/Cat/abc", identity: user, remoteAddress: "10.0.0.1"))
        #expect(!any.applies(method: "GET", path: "users", identity: user, remoteAddress: "10.0.0.1"))
        let exact = try Self.rule(#"{"requestPath":"/login","requestTimeWindow":1,"requestCount":1}"#)
        #expect(exact.applies(method: "POST", path: "login", identity: user, remoteAddress: "10.0.0.1"))
        #expect(!exact.applies(method: "POST", path: "loginAs", identity: user, remoteAddress: "10.0.0.1"))
        let named = try Self.rule(#"{"requestPath":"/classes/:className","requestTimeWindow":1,"requestCount":1}"#)
        #expect(named.applies(method: "POST", path: "classes/Cat", identity: user, remoteAddress: "10.0.0.1"))
        #expect(!named.applies(method: "PUT", path: "classes/Cat/abc", identity: user, remoteAddress: "10.0.0.1"))
    }

    @Test func skipsAsParseServerDoes() throws {
        let rule = try Self.rule(#"{"requestPath":"*","requestTimeWindow":1,"requestCount":1,"requestMethods":["POST"]}"#)
        let user = Identity(), master = Identity(isMaster: true)
        #expect(rule.applies(method: "POST", path: "classes/Cat", identity: user, remoteAddress: "10.0.0.1"))
        #expect(!rule.applies(method: "GET", path: "classes/Cat", identity: user, remoteAddress: "10.0.0.1"))
        #expect(!rule.applies(method: "POST", path: "classes/Cat", identity: master, remoteAddress: "10.0.0.1"))
        #expect(!rule.applies(method: "POST", path: "classes/Cat", identity: user, remoteAddress: "127.0.0.1"))
        let masterToo = try Self.rule(#"{"requestPath":"*","requestTimeWindow":1,"requestCount":1,"includeMasterKey":true,"#
                                      + #""includeInternalRequests":true,"requestMethods":"^P"}"#)
        #expect(masterToo.applies(method: "POST", path: "x", identity: master, remoteAddress: "127.0.0.1"))
        let pattern = try Self.rule(#"{"requestPath":"*","requestTimeWindow":1,"requestCount":1,"requestMethods":"^P"}"#)
        #expect(pattern.applies(method: "PUT", path: "x", identity: user, remoteAddress: "10.0.0.1"))
        #expect(!pattern.applies(method: "DELETE", path: "x", identity: user, remoteAddress: "10.0.0.1"))
    }

    @Test func countsPerZone() throws {
        func rule(_ zone: String) throws -> RateLimitRule {
            try Self.rule(#"{"requestPath":"*","requestTimeWindow":1,"requestCount":1,"zone":"\#(zone)"}"#)
        }
        let signedIn = Identity(userId: "u1", sessionToken: "r:abc")
        #expect(try rule("global").zoneKey(identity: signedIn, remoteAddress: "10.0.0.1") == "global")
        #expect(try rule("ip").zoneKey(identity: signedIn, remoteAddress: "10.0.0.1") == "ip:10.0.0.1")
        #expect(try rule("user").zoneKey(identity: signedIn, remoteAddress: "10.0.0.1") == "user:u1")
        #expect(try rule("session").zoneKey(identity: signedIn, remoteAddress: "10.0.0.1") == "session:r:abc")
        #expect(try rule("user").zoneKey(identity: Identity(), remoteAddress: "10.0.0.1") == "ip:10.0.0.1")
    }
}
