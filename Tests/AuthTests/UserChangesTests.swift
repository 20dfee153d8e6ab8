@testable import AuthCore
import Contracts
import ParseWire
import Testing

struct UserChangesTests {
    private func changes(_ json: String, creating: Bool = true, master: Bool = false) throws -> UserChanges {
        try UserChanges(JSONValue.parse(json)!.objectValue!, creating: creating, isMaster: master, settings: .defaults)
    }

    private func code(_ json: String, creating: Bool = true) -> Int? {
        do { _ = try changes(json, creating: creating); return nil } catch let error as ParseError { return error.code.rawValue } catch { return -999 }
    }

    @Test func signupNeedsUsernameThenPassword() {
        #expect(code(#"{"password":"p"}"#) == 200)
        #expect(code(#"{"username":"","password":"p"}"#) == 200)
        #expect(code(#"{"username":5,"password":"p"}"#) == 200)
        #expect(code(#"{"username":"u"}"#) == 201)
        #expect(code(#"{"username":"u","password":{"$ne":null}}"#) == 201)
    }

    @Test func rejectsBadInput() {
        #expect(code(#"{"username":"u","password":"p","email":"nope"}"#) == 125)
        #expect(code(#"{"username":"u","password":"p","email":7}"#) == 125)
        #expect(code(#"{"username":"u","password":"p","emailVerified":true}"#) == 119)
        #expect(code(#"{"username":"u","password":"p","objectId":"x"}"#) == 105)
        #expect(code(#"{"username":"u","password":"p","_hashed_password":"x"}"#) == 105)
        #expect(code(#"{"username":"u","password":"p","bad-name":1}"#) == 105)
        #expect(code(#"{"username":"u","password":"p","ACL":[]}"#) == 123)
        #expect(code(#"{"username":"u","password":"p","ACL":{"*":{"read":"yes"}}}"#) == 123)
        #expect(code(#"{"username":"u","password":"p","authData":null}"#) == 252)
        #expect(code(#"{"username":"u","password":"p","authData":"anonymous"}"#) == 252)
        #expect(code(#"{"authData":{"anonymous":5}}"#) == 252)
        #expect(code(#"{"authData":{"anonymous":{"id":"1","a.b":1}}}"#) == 121)
        #expect(code(#"{"username":"u","password":"p","profile":{"a.b":1}}"#) == 121)
        #expect(code("{\"username\":\"\(String(repeating: "u", count: 257))\",\"password\":\"p\"}") == 142)
        #expect(code("{\"username\":\"u\",\"password\":\"\(String(repeating: "p", count: 1025))\"}") == 142)
    }

    @Test func keepsFieldsAndDeletes() throws {
        let update = try changes(#"{"nickname":"Al","age":{"__op":"Delete"},"email":null,"createdAt":"x"}"#, creating: false)
        #expect(update.set == ["nickname": .string("Al")])
        #expect(update.unset == ["age"])
        #expect(update.removesEmail)
    }

    @Test func ownerAlwaysKeepsAccess() {
        let acl = ACLValidator.withOwnerAccess(.object(["*": .object(["read": .bool(true)])]), userId: "u1")
        #expect(acl["u1"] == .object(["read": .bool(true), "write": .bool(true)]))
        #expect(acl["*"] == .object(["read": .bool(true)]))
    }

    @Test func accessGroupsIncludeRoles() {
        let groups = AccessGroups(Identity(userId: "u1", roles: ["role:Mods"]))
        #expect(groups.canRead(.object(["role:Mods": .object(["read": .bool(true)])])))
        #expect(!groups.canRead(.object(["u2": .object(["read": .bool(true)])])))
        #expect(!groups.canWrite(.object(["role:Mods": .object(["read": .bool(true)])])))
        #expect(groups.canRead(nil))
        #expect(AccessGroups(.master).canWrite(.object([:])))
        #expect(groups.postgresArray == #"{"*","u1","role:Mods"}"#)
    }

    @Test func lockoutSetting() throws {
        #expect(try AuthSettings.parseLockout("off") == nil)
        #expect(try AuthSettings.parseLockout(#"{"duration":2,"threshold":3}"#) == .init(durationMinutes: 2, threshold: 3))
        #expect(throws: (any Error).self) { try AuthSettings.parseLockout("{}") }
    }
}
