import Contracts
import ParseWire
import Testing
@testable import LiveCore

struct ClassRulesTests {
    static func rules(_ json: String) -> ClassRules {
        ClassRules(schema: ["classLevelPermissions": JSONValue.parse(json) ?? .null])
    }

    @Test func findAndGetFollowTheirEntries() {
        let signedIn = Self.rules(#"{"find":{"requiresAuthentication":true},"get":{"u1":true,"role:Staff":true}}"#)
        #expect(!signedIn.allows("find", identity: nil, hasMasterKey: false))
        #expect(signedIn.allows("find", identity: Identity(userId: "u9"), hasMasterKey: false))
        #expect(signedIn.allows("get", identity: Identity(userId: "u1"), hasMasterKey: false))
        #expect(signedIn.allows("get", identity: Identity(userId: "u2", roles: ["role:Staff"]), hasMasterKey: false))
        #expect(!signedIn.allows("get", identity: Identity(userId: "u2"), hasMasterKey: false))
        #expect(signedIn.allows("get", identity: nil, hasMasterKey: true))
        #expect(ClassRules.open.allows("find", identity: nil, hasMasterKey: false))
        #expect(!ClassRules.closed.allows("find", identity: Identity(userId: "u1"), hasMasterKey: false))
    }

    @Test func protectedFieldsAreTheIntersectionOfTheEntriesThatApply() {
        let rules = Self.rules(#"{"protectedFields":{"*":["email","phone"],"authenticated":["phone"],"role:Staff":[]}}"#)
        #expect(rules.protectedFields(identity: nil, hasMasterKey: false) == ["email", "phone"])
        #expect(rules.protectedFields(identity: Identity(userId: "u1"), hasMasterKey: false) == ["phone"])
        #expect(rules.protectedFields(identity: Identity(userId: "u1", roles: ["role:Staff"]), hasMasterKey: false) == [])
        #expect(rules.protectedFields(identity: nil, hasMasterKey: true) == [])
    }

    @Test func theDefaultPermissionsLetEveryoneReadAndHideNothing() {
        let rules = Self.rules(#"{"find":{"*":true},"get":{"*":true},"protectedFields":{"*":[]}}"#)
        #expect(rules.allows("find", identity: nil, hasMasterKey: false))
        #expect(rules.allows("get", identity: Identity(userId: "u1", roles: ["role:Staff"]), hasMasterKey: false))
        #expect(rules.protectedFields(identity: nil, hasMasterKey: false) == [])
        #expect(rules.protectedFields(identity: Identity(userId: "u1"), hasMasterKey: false) == [])
    }

    @Test func anOperationWithoutItsOwnEntryIsAllowedAndOthersAreReadAsSent() {
        let rules = Self.rules(#"{"find":{"role:Staff":true},"count":{"u1":true}}"#)
        #expect(rules.allows("get", identity: nil, hasMasterKey: false))
        #expect(!rules.allows("find", identity: Identity(userId: "u1"), hasMasterKey: false))
        #expect(rules.allows("count", identity: Identity(userId: "u1"), hasMasterKey: false))
        #expect(!rules.allows("count", identity: Identity(userId: "u2"), hasMasterKey: false))
    }
}
