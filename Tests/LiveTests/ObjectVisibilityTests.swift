import Contracts
import ParseWire
import Testing
@testable import LiveCore

func object(_ json: String) -> [String: JSONValue] { JSONValue.parse(json)?.objectValue ?? [:] }

struct ObjectVisibilityTests {
    static let ownerOnly = object(#"{"objectId":"o1","ACL":{"u1":{"read":true,"write":true}}}"#)
    static let forRole = object(#"{"objectId":"o2","ACL":{"role:Staff":{"read":true}}}"#)

    @Test func readsTheACLAsParseServerDoes() {
        #expect(ObjectVisibility.mayRead(object(#"{"objectId":"o0"}"#), hasMasterKey: false, identity: nil))
        #expect(ObjectVisibility.mayRead(object(#"{"ACL":{"*":{"read":true}}}"#), hasMasterKey: false, identity: nil))
        #expect(!ObjectVisibility.mayRead(Self.ownerOnly, hasMasterKey: false, identity: nil))
        #expect(!ObjectVisibility.mayRead(Self.ownerOnly, hasMasterKey: false, identity: Identity(userId: "u2")))
        #expect(ObjectVisibility.mayRead(Self.ownerOnly, hasMasterKey: false, identity: Identity(userId: "u1")))
        #expect(ObjectVisibility.mayRead(Self.ownerOnly, hasMasterKey: true, identity: nil))
        #expect(ObjectVisibility.mayRead(Self.forRole, hasMasterKey: false, identity: Identity(userId: "u2", roles: ["role:Staff"])))
        #expect(!ObjectVisibility.mayRead(Self.forRole, hasMasterKey: false, identity: Identity(userId: "u2", roles: ["role:Other"])))
    }

    @Test func keysKeepTheDefaultFieldsAndTheOnesAsked() {
        let cat = object(#"{"className":"Cat","objectId":"c1","createdAt":"t","name":"Tom","votes":3}"#)
        #expect(ObjectVisibility.shaped(cat, keys: ["votes", "missing"])
            == object(#"{"className":"Cat","objectId":"c1","createdAt":"t","votes":3}"#))
        #expect(ObjectVisibility.shaped(cat, keys: nil) == cat)
    }
}
