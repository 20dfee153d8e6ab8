import Contracts
import Foundation
import Testing

@Suite struct CommandTests {
    static let identity = Identity(userId: "u1", roles: ["role:admins"], isMaster: false, isReadOnlyMaster: true,
                                   sessionToken: "r:abc")

    @Test func roundTripsWithItsPayload() throws {
        let rest = RESTRequest(method: "PUT", path: "classes/Cat/xyz", query: ["where": #"{"a":1}"#],
                               body: #"{"name":"Tom"}"#, serverURL: "http://localhost:1337/parse")
        let command = Command(type: RESTRequest.type, requestId: "req-1", identity: Self.identity, payload: rest)
        let decoded = try JSONDecoder().decode(Command<RESTRequest>.self, from: try JSONEncoder().encode(command))
        #expect(decoded.type == "rest.v1")
        #expect(decoded.requestId == "req-1")
        #expect(decoded.identity == Self.identity)
        #expect(decoded.payload == rest)
    }

    @Test func headerReadsAnyCommand() throws {
        let command = Command(type: Ping.type, requestId: "req-2", identity: .master, payload: Ping())
        let header = try JSONDecoder().decode(CommandHeader.self, from: try JSONEncoder().encode(command))
        #expect(header.type == "ping.v1")
        #expect(header.requestId == "req-2")
        #expect(header.identity == .master)
    }

    @Test func carriesItsFieldsUnderStableNames() throws {
        let command = Command(type: "ping.v1", requestId: "r", identity: .anonymous, payload: Ping())
        let data = try JSONEncoder().encode(command)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["type", "requestId", "identity", "payload"])
    }

    @Test func identityDefaultsAreAnonymous() {
        #expect(Identity.anonymous.userId == nil)
        #expect(Identity.anonymous.isMaster == false)
        #expect(Identity.anonymous.sessionToken == nil)
        #expect(Identity.master.isMaster)
        #expect(Identity.master.userId == nil)
    }

    @Test func serviceQueuesAreNamedAfterTheService() {
        #expect(ServiceName.allCases.map(\.commandQueue) == ["auth", "posts", "votes", "files", "cloud"])
        #expect(ServiceName.allCases.map(\.deadLetterQueue) == ["auth.dead", "posts.dead", "votes.dead", "files.dead", "cloud.dead"])
        #expect(ServiceName(rawValue: "files") == .files)
        #expect(ServiceName(rawValue: "gateway") == nil)
    }
}
