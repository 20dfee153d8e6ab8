import ParseWire
import Runtime
import ServiceKit
import Testing
@testable import PostsCore

struct UserIncludesTests {
    private static func userPointer(_ id: String) -> JSONValue {
        .object(["__type": .string("Pointer"), "className": .string("_User"), "objectId": .string(id)])
    }

    private static let users: [String: [String: JSONValue]] = [
        "u1": ["objectId": .string("u1"), "username": .string("ann")],
        "u2": ["objectId": .string("u2"), "username": .string("bob")],
    ]

    @Test func gathersUserIdsOfEveryRowPathAndDepth() {
        let post: JSONValue = .object(["__type": .string("Object"), "className": .string("Post"), "objectId": .string("p"),
                                       "author": Self.userPointer("u3")])
        let objects: [[String: JSONValue]] = [
            ["user": Self.userPointer("u1"), "post": post, "likers": .array([Self.userPointer("u2"), .string("x")])],
            ["user": Self.userPointer("u1"), "other": Self.userPointer("u9")],
        ]
        let paths = ObjectReader.PathTree(paths: ["user", "post.author", "likers"])
        #expect(UserIncludes.userIds(in: objects, paths: paths) == ["u1", "u2", "u3"])
    }

    @Test func replacesReadableUsersAndDropsTheOthers() {
        var objects: [[String: JSONValue]] = [
            ["user": Self.userPointer("u1"), "likers": .array([Self.userPointer("u2"), Self.userPointer("hidden")])],
            ["user": Self.userPointer("hidden"), "title": .string("t")],
        ]
        UserIncludes.replace(in: &objects, paths: ObjectReader.PathTree(paths: ["user", "likers"]), users: Self.users)
        #expect(objects[0]["user"] == .object(["__type": .string("Object"), "className": .string("_User"),
                                               "objectId": .string("u1"), "username": .string("ann")]))
        #expect(objects[0]["likers"]?.arrayValue?.count == 1)
        #expect(objects[0]["likers"]?.arrayValue?.first?["username"] == .string("bob"))
        #expect(objects[1]["user"] == nil)
        #expect(objects[1]["title"] == .string("t"))
    }

    @Test func reachesUsersInsideIncludedObjectsOnly() {
        let post: JSONValue = .object(["__type": .string("Object"), "className": .string("Post"), "objectId": .string("p"),
                                       "author": Self.userPointer("u2")])
        var objects: [[String: JSONValue]] = [["post": post, "other": Self.userPointer("u1")]]
        UserIncludes.replace(in: &objects, paths: ObjectReader.PathTree(paths: ["post.author"]), users: Self.users)
        #expect(objects[0]["post"]?["author"]?["username"] == .string("bob"))
        #expect(objects[0]["post"]?["className"] == .string("Post"))
        #expect(objects[0]["other"] == Self.userPointer("u1"))   // not on an include path
    }

    @Test func leavesPointersToOtherClassesAlone() {
        let cat: JSONValue = .object(["__type": .string("Pointer"), "className": .string("Cat"), "objectId": .string("c")])
        var objects: [[String: JSONValue]] = [["pet": cat]]
        #expect(UserIncludes.userIds(in: objects, paths: ObjectReader.PathTree(paths: ["pet"])).isEmpty)
        UserIncludes.replace(in: &objects, paths: ObjectReader.PathTree(paths: ["pet"]), users: Self.users)
        #expect(objects[0]["pet"] == cat)
    }

    @Test func userLookupsWaitHalfTheGatewaysRequestTimeout() throws {
        let timeout = { (env: [String: String]) in
            UserDirectory.timeout(requestTimeout: try ServiceConfiguration.fromEnvironment(.posts, Environment(env)).requestTimeout)
        }
        #expect(try timeout([:]) == .seconds(5))
        #expect(try timeout(["PARSE_REQUEST_TIMEOUT_MS": "3000"]) == .milliseconds(1500))
        // Read once at start: a value that is not a number stops the service instead of being guessed at.
        #expect(throws: ConfigurationError.self) { try timeout(["PARSE_REQUEST_TIMEOUT_MS": "soon"]) }
    }
}
