import Contracts
import ParseWire
import Query
import Testing
@testable import PostsCore

/// posts applies `PARSE_SERVER_REQUEST_COMPLEXITY_*` to finds and gets before any work, `*` counted as the fields it
/// names, and not to the master key.
@Suite(.serialized, .enabled(if: PostsDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL (run with `deploy/stack test`)"))
struct RequestComplexityPostsTests {
    private let limited = PostsConfiguration(requestComplexity: RequestComplexity(includeCount: 2, includeDepth: 2,
                                                                                  queryDepth: 1, subqueryDepth: 1))

    @Test func aQueryBeyondALimitIsRefusedAndTheMasterKeyIsNot() async throws {
        try await PostsDatabase.withScratch { pool in
            let made = try await PostsDatabase.call(pool, "POST", "classes/Nest",
                                                    #"{"a":{"__type":"Pointer","className":"Nest","objectId":"x1"},"#
                                                        + #""b":{"__type":"Pointer","className":"Nest","objectId":"x2"},"#
                                                        + #""c":{"__type":"Pointer","className":"Nest","objectId":"x3"}}"#,
                                                    as: .master)
            #expect(made.status == 201)
            let id = try #require(PostsDatabase.json(made)["objectId"]?.stringValue)
            let client = Identity(userId: "u1")
            func call(_ path: String, _ query: [String: String], as identity: Identity = client) async throws -> Int {
                try await PostsDatabase.call(pool, "GET", path, query: query, as: identity, configuration: limited).status
            }
            #expect(try await call("classes/Nest", ["include": "a.b"]) == 200)
            await #expect(throws: ParseError(.invalidQuery, "Include depth of 3 exceeds maximum allowed depth of 2")) {
                _ = try await call("classes/Nest/\(id)", ["include": "a.b.c"])
            }
            // `a.b` and `c` are three paths.
            await #expect(throws: ParseError(.invalidQuery, "Number of include fields (3) exceeds maximum allowed (2)")) {
                _ = try await call("classes/Nest", ["include": "a.b,c"])
            }
            // `includeAll` names the class's three pointers.
            await #expect(throws: ParseError(.invalidQuery, "Number of include fields (3) exceeds maximum allowed (2)")) {
                _ = try await call("classes/Nest", ["includeAll": "true"])
            }
            await #expect(throws: ParseError(.invalidQuery, "Query condition nesting depth exceeds maximum allowed depth of 1")) {
                _ = try await call("classes/Nest", ["where": #"{"$or":[{"$and":[{"x":1}]}]}"#])
            }
            let nested = #"{"a":{"$inQuery":{"className":"Nest","where":{"b":{"$inQuery":{"className":"Nest","where":{}}}}}}}"#
            await #expect(throws: ParseError(.invalidQuery, "Subquery nesting depth exceeds maximum allowed depth of 1")) {
                _ = try await call("classes/Nest", ["where": nested])
            }
            #expect(try await call("classes/Nest", ["include": "a.b.c,b,c", "where": nested], as: .master) == 200)
        }
    }
}
