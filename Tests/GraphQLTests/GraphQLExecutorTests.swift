import GraphQL
import Synchronization
import Testing

/// Execution over a small schema written here: cats with owners, a `Node` interface, a mutation.
@Suite struct GraphQLExecutorTests {
    struct Refused: GraphQLReportableError {
        var graphQLMessage: String { "Permission denied." }
        var graphQLExtensions: GraphQLData? { .object([GraphQLObjectMember("code", .int(119))]) }
    }

    final class Calls: Sendable {
        let names = Mutex<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
    }

    static func cat(_ id: String, _ name: String, votes: Int) -> GraphQLData {
        .object([GraphQLObjectMember("__class", .string("Cat")), GraphQLObjectMember("objectId", .string(id)),
                 GraphQLObjectMember("name", .string(name)), GraphQLObjectMember("votes", .int(votes))])
    }

    static let cats = [cat("c1", "Tom", votes: 3), cat("c2", "Felix", votes: 7)]

    static func schema(calls: Calls = Calls()) -> GraphQLSchema {
        let node = GraphQLNamedType.interface("Node", fields: [GraphQLFieldDefinition("objectId", .nonNull(.named("ID")))]) { value, _ in
            if case .string(let name)? = (value as? GraphQLData)?["__class"] { name } else { nil }
        }
        let person = GraphQLNamedType.object("Person", interfaces: ["Node"], fields: [
            GraphQLFieldDefinition("objectId", .nonNull(.named("ID"))),
            GraphQLFieldDefinition("name", .named("String")),
        ])
        let cat = GraphQLNamedType.object("Cat", description: "A cat.", interfaces: ["Node"], fields: [
            GraphQLFieldDefinition("objectId", .nonNull(.named("ID"))),
            GraphQLFieldDefinition("name", .nonNull(.named("String"))),
            GraphQLFieldDefinition("votes", .named("Int")),
            GraphQLFieldDefinition("secret", .named("String"), resolve: { _, _, _ in throw Refused() }),
            GraphQLFieldDefinition("required", .nonNull(.named("String")), resolve: { _, _, _ in GraphQLData.null }),
            GraphQLFieldDefinition("owner", .named("Person"), resolve: { _, _, _ in
                GraphQLData.object([GraphQLObjectMember("__class", .string("Person")), GraphQLObjectMember("objectId", .string("u1")),
                                    GraphQLObjectMember("name", .string("Ann"))])
            }),
            GraphQLFieldDefinition("oldName", .named("String"), deprecationReason: "Use name."),
        ])
        let order = GraphQLNamedType.enumeration("CatOrder", values: [GraphQLEnumValueDefinition("votes_ASC"),
                                                                      GraphQLEnumValueDefinition("votes_DESC")])
        let filter = GraphQLNamedType.inputObject("CatWhere", fields: [
            GraphQLArgumentDefinition("minVotes", .named("Int"), defaultValue: .int(0)),
            GraphQLArgumentDefinition("name", .named("String")),
        ])
        let query = GraphQLNamedType.object("Query", fields: [
            GraphQLFieldDefinition("cats", .nonNull(.list(.nonNull(.named("Cat")))), arguments: [
                GraphQLArgumentDefinition("where", .named("CatWhere")),
                GraphQLArgumentDefinition("order", .named("CatOrder"), defaultValue: .string("votes_ASC")),
                GraphQLArgumentDefinition("first", .named("Int")),
            ], resolve: { _, arguments, _ in
                var found = cats
                if case .int(let minimum)? = arguments["where"]?["minVotes"] {
                    found = found.filter { if case .int(let votes)? = $0["votes"] { votes >= minimum } else { false } }
                }
                if arguments["order"] == .string("votes_DESC") { found.reverse() }
                if case .int(let first)? = arguments["first"] { found = Array(found.prefix(first)) }
                return GraphQLData.list(found)
            }),
            GraphQLFieldDefinition("cat", .named("Cat"), arguments: [GraphQLArgumentDefinition("id", .nonNull(.named("ID")))],
                                   resolve: { _, arguments, _ in cats.first { $0["objectId"] == arguments["id"] } ?? GraphQLData.null }),
            GraphQLFieldDefinition("node", .named("Node"), arguments: [GraphQLArgumentDefinition("id", .nonNull(.named("ID")))],
                                   resolve: { _, arguments, _ in cats.first { $0["objectId"] == arguments["id"] } ?? GraphQLData.null }),
            GraphQLFieldDefinition("brokenCats", .list(.nonNull(.named("Cat"))), resolve: { _, _, _ in
                GraphQLData.list([Self.cats[0], .null])
            }),
        ])
        let mutation = GraphQLNamedType.object("Mutation", fields: [
            GraphQLFieldDefinition("first", .named("String"), resolve: { _, _, _ in
                try await Task.sleep(for: .milliseconds(20))
                calls.add("first")
                return GraphQLData.string("1")
            }),
            GraphQLFieldDefinition("second", .named("String"), resolve: { _, _, _ in
                calls.add("second")
                return GraphQLData.string("2")
            }),
            GraphQLFieldDefinition("rename", .named("String"), arguments: [GraphQLArgumentDefinition("input", .nonNull(.named("RenameInput")))],
                                   resolve: { _, arguments, _ in
                GraphQLData.string("\(arguments["input"]?["id"]?.jsonText ?? "-"):\(arguments["input"]?["name"]?.jsonText ?? "-")")
            }),
        ])
        let rename = GraphQLNamedType.inputObject("RenameInput", fields: [
            GraphQLArgumentDefinition("id", .nonNull(.named("ID"))), GraphQLArgumentDefinition("name", .named("String")),
        ])
        return GraphQLSchema(query: "Query", mutation: "Mutation",
                             types: [query, mutation, node, person, cat, order, filter, rename])
    }

    private func run(_ query: String, variables: [String: GraphQLData] = [:], operationName: String? = nil,
                     schema: GraphQLSchema = schema()) async -> GraphQLResponse {
        await GraphQLExecutor(schema: schema).execute(GraphQLRequest(query: query, operationName: operationName, variables: variables))
    }

    @Test func fieldsAliasesFragmentsAndArguments() async {
        let response = await run("""
            query Cats($min: Int) {
              top: cats(where: {minVotes: $min}, order: votes_DESC) { ...names votes }
              all: cats { objectId }
            }
            fragment names on Cat { name __typename }
            """, variables: ["min": .int(5)])
        #expect(response.errors.isEmpty)
        #expect(response.jsonText == #"{"data":{"top":[{"name":"Felix","__typename":"Cat","votes":7}],"all":[{"objectId":"c1"},{"objectId":"c2"}]}}"#)
    }

    @Test func skipAndIncludeFollowTheirVariables() async {
        let query = "query Q($on: Boolean!) { cat(id: \"c1\") { name @include(if: $on) votes @skip(if: $on) } }"
        let on = await run(query, variables: ["on": .boolean(true)])
        #expect(on.jsonText == #"{"data":{"cat":{"name":"Tom"}}}"#)
        let off = await run(query, variables: ["on": .boolean(false)])
        #expect(off.jsonText == #"{"data":{"cat":{"votes":3}}}"#)
    }

    @Test func anInterfaceResolvesToItsObjectType() async {
        let response = await run(#"{ node(id: "c2") { objectId __typename ... on Cat { name } ... on Person { name } } }"#)
        #expect(response.jsonText == #"{"data":{"node":{"objectId":"c2","__typename":"Cat","name":"Felix"}}}"#)
    }

    @Test func aFailingFieldIsNullWithItsErrorAndPath() async {
        let response = await run(#"{ cat(id: "c1") { name secret } }"#)
        #expect(response.jsonText == #"{"errors":[{"message":"Permission denied.","locations":[{"line":1,"column":24}],"path":["cat","secret"],"extensions":{"code":119}}],"data":{"cat":{"name":"Tom","secret":null}}}"#)
    }

    @Test func aNullInANonNullFieldNullsTheNearestNullableParent() async {
        let response = await run(#"{ cat(id: "c1") { name required } }"#)
        #expect(response.data == .object([GraphQLObjectMember("cat", .null)]))
        #expect(response.errors.map(\.message) == ["Cannot return null for non-nullable field Cat.required."])
        #expect(response.errors.first?.path == [.key("cat"), .key("required")])
        let list = await run("{ brokenCats { name } }")
        #expect(list.data == .object([GraphQLObjectMember("brokenCats", .null)]))
        #expect(list.errors.first?.path == [.key("brokenCats"), .index(1)])
    }

    @Test func mutationsRunTheirFieldsInOrder() async {
        let calls = Calls()
        let response = await run("mutation { b: second a: first c: second }", schema: Self.schema(calls: calls))
        #expect(response.jsonText == #"{"data":{"b":"2","a":"1","c":"2"}}"#)
        #expect(calls.names.withLock { $0 } == ["second", "first", "second"])
    }

    @Test func invalidDocumentsAnswerErrorsAndNoData() async {
        let cases: [(String, String)] = [
            ("{ cat(id: \"c1\") { color } }", "Cannot query field \"color\" on type \"Cat\"."),
            ("{ cats }", "Field \"cats\" of type \"[Cat!]!\" must have a selection of subfields. Did you mean \"cats { ... }\"?"),
            ("{ cat(id: \"c1\") { name { x } } }", "Field \"name\" must not have a selection since type \"String!\" has no subfields."),
            ("{ cat { name } }", "Field \"cat\" argument \"id\" of type \"ID!\" is required, but it was not provided."),
            ("{ cat(id: \"c1\", size: 2) { name } }", "Unknown argument \"size\" on field \"Query.cat\"."),
            ("{ cat(id: $id) { name } }", "Variable \"$id\" is not defined."),
            ("{ cats { ...missing } }", "Unknown fragment \"missing\"."),
            ("{ cats { ...a } } fragment a on Cat { ...b } fragment b on Cat { ...a }",
             "Cannot spread fragment \"a\" within itself via b."),
            ("{ cats @cached { name } }", "Unknown directive \"@cached\"."),
            ("{ a: cats { name } } { b: cats { name } }", "This anonymous operation must be the only defined operation."),
            ("{ cats { name } ", "Syntax Error: Expected Name, found <EOF>."),
        ]
        for (query, message) in cases {
            let response = await run(query)
            #expect(response.data == nil, "\(query)")
            #expect(response.errors.first?.message == message, "\(query)")
        }
    }

    /// Fragments spread in a chain nest as deeply as fields, which the parser cannot see: refused before any walk
    /// follows them. A fragment spread many times is measured once.
    @Test func fragmentsNestedTooDeeplyAreRefused() async {
        let chain = (1..<5_000).map { "fragment f\($0) on Cat { ...f\($0 + 1) }" }.joined(separator: "\n")
        let deep = await run("{ cats { ...f1 } }\n" + chain + "\nfragment f5000 on Cat { name }")
        #expect(deep.data == nil)
        #expect(deep.errors.map(\.message) == ["The operation nests fields and fragments more than 128 levels deep."])
        // Each fragment spreads the next one twice: 2^60 spreads if each were walked where it is spread.
        let fanOut = (1..<60).map { "fragment w\($0) on Cat { ...w\($0 + 1) ... on Cat { ...w\($0 + 1) } }" }.joined(separator: "\n")
        let shallow = await run("{ cats { ...w1 } }\n" + fanOut + "\nfragment w60 on Cat { name }")
        #expect(shallow.errors.isEmpty, "\(shallow.errors.prefix(1))")
        #expect(shallow.jsonText == #"{"data":{"cats":[{"name":"Tom"},{"name":"Felix"}]}}"#)
    }

    @Test func variablesAreCoercedToTheirTypes() async {
        let missing = await run("query Q($id: ID!) { cat(id: $id) { name } }")
        #expect(missing.data == nil)
        #expect(missing.errors.map(\.message) == ["Variable \"$id\" of required type \"ID!\" was not provided."])
        let wrong = await run("query Q($n: Int) { cats(first: $n) { name } }", variables: ["n": .string("two")])
        #expect(wrong.data == nil)
        #expect(wrong.errors.count == 1)
        let listed = await run("query Q($n: Int = 1, $order: CatOrder) { cats(first: $n, order: $order) { name } }",
                               variables: ["order": .string("votes_DESC")])
        #expect(listed.jsonText == #"{"data":{"cats":[{"name":"Felix"}]}}"#)
        let badLiteral = await run(#"{ cats(first: "two") { name } }"#)
        #expect(badLiteral.data == nil)
        #expect(badLiteral.errors.first?.message == "Int cannot represent non-integer value: \"two\"")
        let stringForEnum = await run(#"{ cats(order: "votes_DESC") { name } }"#)
        #expect(stringForEnum.errors.first?.message == "Enum \"CatOrder\" cannot represent non-enum value: \"votes_DESC\".")
        let missingInputField = await run("{ cats(where: {color: 1}) { name } }")
        #expect(missingInputField.errors.first?.message == "Field \"color\" is not defined by type \"CatWhere\".")
    }

    @Test func aVariableGivesARequiredFieldOfAnInputObjectLiteral() async {
        let document = "mutation M($id: ID!) { rename(input: {id: $id, name: \"Kit\"}) }"
        #expect(await run(document, variables: ["id": .string("c1")]).jsonText == #"{"data":{"rename":"\"c1\":\"Kit\""}}"#)
        #expect(await run(document).errors.map(\.message) == ["Variable \"$id\" of required type \"ID!\" was not provided."])
        #expect(await run("mutation { rename(input: {name: \"Kit\"}) }").errors.map(\.message)
                    == ["Field \"RenameInput.id\" of required type \"ID!\" was not provided."])
    }

    @Test func limitsBoundDepthAndFieldsWithFragmentsFollowed() throws {
        let document = try GraphQLParser.parse("""
            query { cats { ...Parts owner { name } } first: cat(id: "c1") { ...Parts } }
            fragment Parts on Cat { objectId name }
            """)
        #expect(GraphQLLimits(maximumDepth: 3, maximumFields: 8).refusal(of: document, operationName: nil) == nil)
        #expect(GraphQLLimits(maximumDepth: 2).refusal(of: document, operationName: nil)?.message
                    == "Query depth of 3 exceeds maximum allowed depth of 2")
        #expect(GraphQLLimits(maximumFields: 7).refusal(of: document, operationName: nil)?.message
                    == "Number of fields (8) exceeds maximum allowed (7)")
        #expect(GraphQLLimits.none.refusal(of: document, operationName: nil) == nil)
    }

    @Test func operationsAreChosenByName() async {
        let document = "query A { cat(id: \"c1\") { name } } query B { cat(id: \"c2\") { name } }"
        #expect(await run(document, operationName: "B").jsonText == #"{"data":{"cat":{"name":"Felix"}}}"#)
        #expect(await run(document).errors.first?.message == "Must provide operation name if query contains multiple operations.")
        #expect(await run(document, operationName: "C").errors.first?.message == "Unknown operation named \"C\".")
    }

    @Test func introspectionDescribesTheSchema() async {
        let response = await run("""
            {
              __schema { queryType { name } mutationType { name } subscriptionType { name } directives { name } }
              cat: __type(name: "Cat") {
                kind name description interfaces { name }
                fields { name type { kind name ofType { kind name } } }
                all: fields(includeDeprecated: true) { name isDeprecated deprecationReason }
              }
              order: __type(name: "CatOrder") { kind enumValues { name } }
              where: __type(name: "CatWhere") { kind inputFields { name defaultValue type { name } } }
              node: __type(name: "Node") { kind possibleTypes { name } }
              none: __type(name: "Dog") { name }
            }
            """)
        #expect(response.errors.isEmpty)
        let data = response.data
        #expect(data?["__schema"]?["queryType"]?["name"] == .string("Query"))
        #expect(data?["__schema"]?["mutationType"]?["name"] == .string("Mutation"))
        #expect(data?["__schema"]?["subscriptionType"] == .null)
        #expect(data?["__schema"]?["directives"] == .list(["include", "skip", "deprecated", "specifiedBy"].map {
            .object([GraphQLObjectMember("name", .string($0))])
        }))
        let cat = data?["cat"]
        #expect(cat?["kind"] == .string("OBJECT"))
        #expect(cat?["description"] == .string("A cat."))
        #expect(cat?["interfaces"] == .list([.object([GraphQLObjectMember("name", .string("Node"))])]))
        guard case .list(let fields)? = cat?["fields"], case .list(let all)? = cat?["all"] else {
            Issue.record("no fields in \(String(describing: cat))")
            return
        }
        #expect(fields.compactMap { $0["name"] } == ["objectId", "name", "votes", "secret", "required", "owner"].map(GraphQLData.string))
        #expect(all.count == fields.count + 1)
        #expect(all.last?["deprecationReason"] == .string("Use name."))
        let name = fields[1]["type"]
        #expect(name?["kind"] == .string("NON_NULL"))
        #expect(name?["ofType"]?["name"] == .string("String"))
        #expect(data?["order"]?["enumValues"] == .list([.object([GraphQLObjectMember("name", .string("votes_ASC"))]),
                                                       .object([GraphQLObjectMember("name", .string("votes_DESC"))])]))
        #expect(data?["where"]?["inputFields"]?.jsonText
                == #"[{"name":"minVotes","defaultValue":"0","type":{"name":"Int"}},{"name":"name","defaultValue":null,"type":{"name":"String"}}]"#)
        #expect(data?["node"]?["possibleTypes"] == .list(["Person", "Cat"].map { .object([GraphQLObjectMember("name", .string($0))]) }))
        #expect(data?["none"] == .null)
    }

    /// The query clients send to build a schema of their own (graphql-js's `getIntrospectionQuery()`, fragments and
    /// all) runs without an error.
    @Test func theClientsIntrospectionQueryRuns() async {
        let response = await run(Self.introspectionQuery)
        #expect(response.errors.isEmpty, "\(response.errors)")
        guard case .list(let types)? = response.data?["__schema"]?["types"] else {
            Issue.record("no types")
            return
        }
        let names = types.compactMap { if case .string(let name)? = $0["name"] { name } else { nil } }
        #expect(Set(["Query", "Mutation", "Cat", "Node", "String", "__Schema", "__Type", "__TypeKind"]).isSubset(of: Set(names)))
    }

    static let introspectionQuery = """
        query IntrospectionQuery {
          __schema {
            queryType { name }
            mutationType { name }
            subscriptionType { name }
            types { ...FullType }
            directives { name description locations args { ...InputValue } }
          }
        }
        fragment FullType on __Type {
          kind name description
          fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
          inputFields { ...InputValue }
          interfaces { ...TypeRef }
          enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
          possibleTypes { ...TypeRef }
        }
        fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
        fragment TypeRef on __Type {
          kind name
          ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
        }
        """
}
