import GraphQL
@testable import ParseGraphQL
import ParseWire
import Synchronization
import Testing

/// What the GraphQL API asks of REST for each operation, over a backend that records the calls.
@Suite struct ParseGraphQLResolutionTests {
    let endpoint = ParseGraphQLEndpoint()

    private func run(_ query: String, variables: [String: GraphQLData] = [:], backend: RecordingBackend,
                     uploads: [GraphQLUpload] = []) async -> GraphQLResponse {
        await endpoint.execute(GraphQLRequest(query: query, variables: variables), backend: backend, uploads: uploads) {
            ParseGraphQLInputs(schemas: ParseGraphQLSchemaTests.schemas, functionNames: ["hello"])
        }
    }

    private static func whereOf(_ call: RecordingBackend.Call?) -> JSONValue? { call?.query["where"].flatMap { JSONValue.parse($0) } }

    @Test func aFindAsksForWhatItsSelectionReads() async throws {
        let backend = RecordingBackend { _ in
            JSONValue.parse(#"{"results":[{"objectId":"c1","name":"Tom","votes":3,"owner":{"__type":"Object","className":"_User","objectId":"u1","username":"ann"}}],"count":7}"#)!
        }
        let userId = RelayIdentifiers.globalID(className: "_User", objectId: "u1")
        let response = await run("""
            query($owner: ID) { cats(where: {votes: {greaterThan: 2}, owner: {have: {id: {equalTo: $owner}}},
                                       OR: [{name: {equalTo: "Tom"}}, {name: {matchesRegex: "^F", options: "i"}}]},
                                 order: [votes_DESC, id_ASC], first: 5, skip: 2) {
              count edges { cursor node { id name owner { username } } } } }
            """, variables: ["owner": .string(userId)], backend: backend)
        #expect(response.errors.isEmpty, "\(response.errors)")
        let call = try #require(backend.recorded.first)
        #expect(call.path == "classes/Cat")
        #expect(call.query["limit"] == "5" && call.query["skip"] == "2" && call.query["count"] == "1")
        #expect(call.query["order"] == "-votes,objectId")
        #expect(call.query["include"] == "owner")
        #expect(Self.whereOf(call) == JSONValue.parse("""
            {"votes":{"$gt":2},"owner":{"$inQuery":{"className":"_User","where":{"objectId":{"$eq":"u1"}}}},
             "$or":[{"name":{"$eq":"Tom"}},{"name":{"$regex":"^F","$options":"i"}}]}
            """))
        #expect(response.jsonText == """
            {"data":{"cats":{"count":7,"edges":[{"cursor":"\(RelayIdentifiers.cursor(offset: 2))","node":{"id":"\(RelayIdentifiers.globalID(className: "Cat", objectId: "c1"))","name":"Tom","owner":{"username":"ann"}}}]}}}
            """)
    }

    @Test func aCountAloneReadsNoObjects() async throws {
        let backend = RecordingBackend { _ in JSONValue.parse(#"{"results":[],"count":4}"#)! }
        let response = await run("{ cats { count } }", backend: backend)
        #expect(response.jsonText == #"{"data":{"cats":{"count":4}}}"#)
        #expect(backend.recorded.first?.query["limit"] == "0")
    }

    @Test func aMissingObjectIsAFieldErrorWithItsParseCode() async {
        let backend = RecordingBackend { _ in throw ParseError(.objectNotFound, "Object not found.") }
        let response = await run(#"{ cat(id: "nope") { name } }"#, backend: backend)
        #expect(response.jsonText == #"{"errors":[{"message":"Object not found.","locations":[{"line":1,"column":3}],"path":["cat"],"extensions":{"code":101}}],"data":null}"#)
    }

    @Test func aCreateLinksANewPointerAndWritesTheACL() async throws {
        let backend = RecordingBackend { call in
            call.path == "classes/_User" ? JSONValue.parse(#"{"objectId":"u9","createdAt":"2026-01-01T00:00:00.000Z"}"#)!
                : JSONValue.parse(#"{"objectId":"c9","createdAt":"2026-01-02T00:00:00.000Z"}"#)!
        }
        let response = await run("""
            mutation { createCat(input: {clientMutationId: "m", fields: {name: "Kit", home: {latitude: 1, longitude: 2},
              owner: {createAndLink: {username: "ann", password: "p"}},
              ACL: {public: {read: true, write: false}, users: [{userId: "u1", read: true, write: true}]}}}) {
              clientMutationId cat { objectId name createdAt updatedAt } } }
            """, backend: backend)
        #expect(response.jsonText == #"{"data":{"createCat":{"clientMutationId":"m","cat":{"objectId":"c9","name":"Kit","createdAt":"2026-01-02T00:00:00.000Z","updatedAt":"2026-01-02T00:00:00.000Z"}}}}"#)
        let calls = backend.recorded
        // As parse-server does, the object is read again for the fields the answer to the create does not have.
        #expect(calls.map(\.path) == ["classes/_User", "classes/Cat", "classes/Cat/c9"])
        #expect(calls[1].body == JSONValue.parse("""
            {"name":"Kit","home":{"__type":"GeoPoint","latitude":1,"longitude":2},
             "owner":{"__type":"Pointer","className":"_User","objectId":"u9"},
             "ACL":{"*":{"read":true,"write":false},"u1":{"read":true,"write":true}}}
            """))
    }

    @Test func anUpdateSetsNullAsADeleteAndRelationsAsBatches() async throws {
        let backend = RecordingBackend { _ in JSONValue.parse(#"{"updatedAt":"2026-01-03T00:00:00.000Z"}"#)! }
        let response = await run("""
            mutation { updateCat(input: {id: "c1", fields: {votes: null, friends: {add: ["c2"], remove: ["c3"]}}}) { cat { objectId votes } } }
            """, backend: backend)
        #expect(response.jsonText == #"{"data":{"updateCat":{"cat":{"objectId":"c1","votes":null}}}}"#)
        #expect(backend.recorded.first?.body == JSONValue.parse("""
            {"votes":{"__op":"Delete"},"friends":{"__op":"Batch","ops":[
              {"__op":"AddRelation","objects":[{"__type":"Pointer","className":"Cat","objectId":"c2"}]},
              {"__op":"RemoveRelation","objects":[{"__type":"Pointer","className":"Cat","objectId":"c3"}]}]}}
            """))
    }

    @Test func theViewerNeedsASession() async {
        let backend = RecordingBackend { _ in .object([:]) }
        let response = await run("{ viewer { user { username } } }", backend: backend)
        #expect(response.errors.first?.extensions == .object([GraphQLObjectMember("code", .int(209))]))
        #expect(backend.recorded.isEmpty)
    }

    @Test func anUploadIsStoredWithTheExtensionOfItsType() async throws {
        let backend = RecordingBackend { _ in JSONValue.parse(#"{"name":"x_photo.png","url":"http://files/x_photo.png"}"#)! }
        let upload = GraphQLUpload(filename: "photo", contentType: "image/png", bytes: [1, 2, 3])
        let response = await run("mutation($file: Upload!) { createFile(input: {upload: $file}) { fileInfo { name url } } }",
                                 variables: ["file": GraphQLData(json: GraphQLUpload.placeholder(0))], backend: backend, uploads: [upload])
        #expect(response.jsonText == #"{"data":{"createFile":{"fileInfo":{"name":"x_photo.png","url":"http://files/x_photo.png"}}}}"#)
        #expect(backend.recorded.first == RecordingBackend.Call(method: "UPLOAD", path: "photo.png",
                                                                 query: ["contentType": "image/png", "bytes": "3"], body: nil))
    }

    @Test func theSchemaIsReadAgainWhenADocumentNeedsIt() async {
        let reads = Mutex(0)
        let withDog = Mutex(false)
        let source: ParseGraphQLEndpoint.SchemaSource = {
            reads.withLock { $0 += 1 }
            guard withDog.withLock({ $0 }) else { return ParseGraphQLInputs(schemas: ParseGraphQLSchemaTests.schemas) }
            var classes = ParseGraphQLSchemaTests.schemas["results"]?.arrayValue ?? []
            classes.append(JSONValue.parse(#"{"className":"Dog","fields":{"objectId":{"type":"String"},"bark":{"type":"String"}}}"#)!)
            return ParseGraphQLInputs(schemas: .object(["results": .array(classes)]))
        }
        let endpoint = ParseGraphQLEndpoint(maximumAge: .seconds(3600))
        let backend = RecordingBackend { _ in JSONValue.parse(#"{"results":[],"count":0}"#)! }
        func run(_ query: String) async -> GraphQLResponse {
            await endpoint.execute(GraphQLRequest(query: query), backend: backend, schema: source)
        }
        #expect(await run("{ cats { count } }").errors.isEmpty)
        #expect(await run("{ cats { count } }").errors.isEmpty)
        #expect(reads.withLock { $0 } == 1)
        // A class that appeared since: the kept schema refuses the document, the one read now runs it.
        withDog.withLock { $0 = true }
        #expect(await run("{ dogs { count } }").errors.isEmpty)
        #expect(reads.withLock { $0 } == 2)
        #expect(await run("{ nothings { count } }").errors.map(\.message) == ["Cannot query field \"nothings\" on type \"Query\"."])
        #expect(reads.withLock { $0 } == 3)
        // Introspection always reads it now.
        #expect(await run("{ __type(name: \"Dog\") { name } }").jsonText == #"{"data":{"__type":{"name":"Dog"}}}"#)
        #expect(reads.withLock { $0 } == 4)
    }

    @Test func requestsThatNeedTheSchemaReadNowShareAtMostTwoReads() async {
        let reads = Mutex(0)
        let source: ParseGraphQLEndpoint.SchemaSource = {
            reads.withLock { $0 += 1 }
            try await Task.sleep(for: .milliseconds(50))
            return ParseGraphQLInputs(schemas: ParseGraphQLSchemaTests.schemas)
        }
        let endpoint = ParseGraphQLEndpoint(maximumAge: .seconds(3600))
        let backend = RecordingBackend { _ in .object([:]) }
        // A document no schema has: each request needs the schema read after it arrived.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask { _ = await endpoint.execute(GraphQLRequest(query: "{ nothing }"), backend: backend, schema: source) }
            }
        }
        #expect(reads.withLock { $0 } <= 2)
    }

    @Test func aDocumentBeyondTheLimitsRunsNothing() async {
        let backend = RecordingBackend { _ in JSONValue.parse(#"{"results":[]}"#)! }
        let response = await endpoint.execute(GraphQLRequest(query: "{ cats { edges { node { owner { username } } } } }"), backend: backend,
                                              limits: GraphQLLimits(maximumDepth: 3)) { ParseGraphQLInputs(schemas: ParseGraphQLSchemaTests.schemas) }
        #expect(response.jsonText == #"{"errors":[{"message":"Query depth of 5 exceeds maximum allowed depth of 3","extensions":{"code":102}}]}"#)
        #expect(backend.recorded.isEmpty)
    }

    @Test func aMultipartRequestPutsItsFilesWhereItsMapSays() throws {
        let body = Array("""
            --XyZ\r
            Content-Disposition: form-data; name="operations"\r
            \r
            {"query":"mutation($file: Upload!) { createFile(input: {upload: $file}) { fileInfo { name } } }","variables":{"file":null}}\r
            --XyZ\r
            Content-Disposition: form-data; name="map"\r
            \r
            {"0":["variables.file"]}\r
            --XyZ\r
            Content-Disposition: form-data; name="0"; filename="a.txt"\r
            Content-Type: text/plain\r
            \r
            hello\r
            --XyZ--\r

            """.utf8)
        let parsed = try GraphQLHTTPRequest.parse(method: "POST", contentType: "multipart/form-data; boundary=XyZ", body: body, query: [:])
        #expect(parsed.uploads.map(\.filename) == ["a.txt"])
        #expect(parsed.uploads.first?.bytes == Array("hello".utf8))
        #expect(parsed.uploads.first?.contentType == "text/plain")
        #expect(parsed.request.variables["file"] == GraphQLData(json: GraphQLUpload.placeholder(0)))
        #expect(throws: GraphQLHTTPRequest.Refusal.self) {
            try GraphQLHTTPRequest.parse(method: "POST", contentType: "multipart/form-data; boundary=XyZ", body: Array("--XyZ\r\nbroken".utf8), query: [:])
        }
    }

    @Test func aMultipartSearchFindsTheFirstOccurrence() {
        func find(_ needle: String, _ haystack: String, from start: Int = 0) -> Int? {
            MultipartFormData.find(Array(needle.utf8), in: Array(haystack.utf8), from: start)
        }
        #expect(find("--ab", "x--a--ab--ab") == 4)
        #expect(find("--ab", "x--a--ab--ab", from: 6) == 8)
        #expect(find("aab", "aaab") == 1)
        #expect(find("abc", "ab") == nil)
        #expect(find("a", "") == nil)
    }

    @Test func aMutationIsRefusedOverGet() {
        #expect(throws: GraphQLHTTPRequest.Refusal(status: 405, message: "Mutations can only be executed via POST", code: "BAD_REQUEST")) {
            try GraphQLHTTPRequest.parse(method: "GET", contentType: nil, body: [], query: ["query": "mutation { logOut(input: {}) { ok } }"])
        }
        let query = try? GraphQLHTTPRequest.parse(method: "GET", contentType: nil, body: [], query: ["query": "{ health }", "variables": "{\"a\":1}"])
        #expect(query?.request.variables == ["a": .int(1)])
    }
}
