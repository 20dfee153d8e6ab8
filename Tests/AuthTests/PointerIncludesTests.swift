@testable import AuthCore
import Contracts
import ParseWire
import Synchronization
import Testing

struct PointerIncludesTests {
    private let request = AuthRequest(Command(type: RESTRequest.type, requestId: "r", identity: Identity(userId: "u1"),
                                              payload: RESTRequest(method: "GET", path: "users/u1", query: [:], body: nil,
                                                                   serverURL: "http://h/parse")))

    private static func pointer(_ className: String, _ id: String) -> JSONValue {
        .object(["__type": .string("Pointer"), "className": .string(className), "objectId": .string(id)])
    }

    @Test func pathsAreGroupedByTheirFirstField() {
        #expect(PointerIncludes.paths("child, child.grand,other,child.x.y") == ["child": ["grand", "x.y"], "other": []])
    }

    @Test func pointersAreReplacedByWhatPostsAnswersAndTheRestStays() async throws {
        let asked = Mutex<[String]>([])
        let includes = PointerIncludes(fetch: { className, ids, include, caller in
            asked.withLock { $0.append("\(className) \(ids) \(include) \(caller.identity.userId ?? "-")") }
            return ["c1": ["objectId": .string("c1"), "name": .string("kid")]]
        }, users: { ids, _ in
            asked.withLock { $0.append("users \(ids)") }
            return ["u2": ["objectId": .string("u2"), "username": .string("boss")]]
        })
        let users: [[String: JSONValue]] = [
            ["objectId": .string("u1"), "child": Self.pointer("Kid", "c1"), "boss": Self.pointer("_User", "u2")],
            ["objectId": .string("u2"), "child": .array([Self.pointer("Kid", "c1"), Self.pointer("Kid", "gone")])],
        ]
        let expanded = try await includes.expand(users, include: "child.toy,boss", for: request)
        #expect(expanded[0]["child"] == .object(["objectId": .string("c1"), "name": .string("kid"),
                                                 "__type": .string("Object"), "className": .string("Kid")]))
        // Users are read by auth itself, not asked of posts; an id nobody answered stays a pointer.
        #expect(expanded[0]["boss"] == .object(["objectId": .string("u2"), "username": .string("boss"),
                                                "__type": .string("Object"), "className": .string("_User")]))
        #expect(expanded[1]["child"]?.arrayValue?.last == Self.pointer("Kid", "gone"))
        #expect(asked.withLock { $0 } == [#"users ["u2"]"#, #"Kid ["c1", "gone"] ["toy"] u1"#])
    }
}
