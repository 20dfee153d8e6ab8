import GraphQL
@testable import ParseGraphQL
import ParseWire
import Testing

/// The schema made from a Parse schema: parse-server's names and shapes, which clients written against it depend on.
@Suite struct ParseGraphQLSchemaTests {
    static let schemas = JSONValue.parse("""
        {"results":[
          {"className":"_User","fields":{"objectId":{"type":"String"},"createdAt":{"type":"Date"},"updatedAt":{"type":"Date"},
           "ACL":{"type":"ACL"},"username":{"type":"String"},"password":{"type":"String"},"email":{"type":"String"},
           "_auth_data_facebook":{"type":"Object"}}},
          {"className":"Cat","fields":{"objectId":{"type":"String"},"createdAt":{"type":"Date"},"updatedAt":{"type":"Date"},
           "ACL":{"type":"ACL"},"name":{"type":"String","required":true},"votes":{"type":"Number"},
           "owner":{"type":"Pointer","targetClass":"_User"},"friends":{"type":"Relation","targetClass":"Cat"},
           "home":{"type":"GeoPoint"},"photo":{"type":"File"},"tags":{"type":"Array"}}},
          {"className":"my-class","fields":{}}
        ]}
        """)!

    static func schema(functions: [String] = []) -> GraphQLSchema {
        ParseGraphQLSchemaBuilder(classes: ParseClassDirectory(schemasAnswer: schemas), functionNames: functions).build()
    }

    @Test func aClassHasParseServersTypes() throws {
        let schema = Self.schema()
        for name in ["Cat", "CatConnection", "CatEdge", "CatWhereInput", "CatRelationWhereInput", "CatOrder", "CreateCatFieldsInput",
                     "UpdateCatFieldsInput", "CatPointerInput", "CatRelationInput", "CreateCatInput", "CreateCatPayload",
                     "UpdateCatInput", "DeleteCatPayload", "User", "Viewer", "ParseObject", "Node", "ArrayResult", "PageInfo"] {
            #expect(schema[name] != nil, "no \(name)")
        }
        let cat = try #require(schema["Cat"])
        #expect(cat.interfaces == ["ParseObject", "Node"])
        #expect(cat.fields.map(\.name) == ["id", "objectId", "createdAt", "updatedAt", "ACL", "friends", "home", "name", "owner",
                                           "photo", "tags", "votes"])
        #expect(cat.field("name")?.type == .nonNull(.named("String")))
        #expect(cat.field("owner")?.type == .named("User"))
        #expect(cat.field("friends")?.type == .nonNull(.named("CatConnection")))
        #expect(cat.field("friends")?.arguments.map(\.name) == ["where", "order", "skip", "after", "first", "before", "last", "options"])
        #expect(schema["CreateCatFieldsInput"]?.inputFields.first { $0.name == "name" }?.type == .nonNull(.named("String")))
        #expect(schema["UpdateCatFieldsInput"]?.inputFields.first { $0.name == "name" }?.type == .named("String"))
        #expect(schema["CatWhereInput"]?.inputFields.first { $0.name == "owner" }?.type == .named("UserRelationWhereInput"))
        #expect(schema["CatOrder"]?.enumValues.prefix(2).map(\.name) == ["ACL_ASC", "ACL_DESC"])
        // A user's password is never read; auth data columns and a class GraphQL cannot name are left out.
        #expect(schema["User"]?.field("password") == nil)
        #expect(schema["User"]?.field("authDataResponse") != nil)
        #expect(schema["User"]?.fields.contains { $0.name.hasPrefix("_auth_data_") } == false)
        #expect(schema.types.keys.contains { $0.lowercased().contains("my-class") } == false)
    }

    @Test func queriesAndMutationsHaveParseServersNames() {
        let schema = Self.schema()
        #expect(schema["Query"]?.fields.map(\.name) == ["node", "user", "users", "cat", "cats", "health", "viewer", "class", "classes"])
        #expect(schema["Mutation"]?.fields.map(\.name) == ["createUser", "updateUser", "deleteUser", "createCat", "updateCat", "deleteCat",
                                                           "createFile", "signUp", "logInWith", "logIn", "logOut", "resetPassword",
                                                           "confirmResetPassword", "sendVerificationEmail", "challenge",
                                                           "createClass", "updateClass", "deleteClass"])
        let withFunctions = Self.schema(functions: ["hello", "not-a-name"])
        #expect(withFunctions["Mutation"]?.field("callCloudCode") != nil)
        #expect(withFunctions["CloudCodeFunction"]?.enumValues.map(\.name) == ["hello"])
    }

    @Test func theGraphQLConfigurationShapesTheSchema() throws {
        let config = ParseGraphQLConfig(stored: JSONValue.parse("""
            {"enabledForClasses":["Cat"],"classConfigs":[{"className":"Cat",
              "type":{"inputFields":{"create":["name"]},"outputFields":["name"],"constraintFields":["votes"],
                      "sortFields":[{"field":"votes","asc":false,"desc":true}]},
              "query":{"get":false,"findAlias":"kitties"},"mutation":{"destroy":false,"createAlias":"addCat","create":true}}]}
            """)!)
        let schema = ParseGraphQLSchemaBuilder(classes: ParseClassDirectory(schemasAnswer: Self.schemas), functionNames: [], config: config).build()
        #expect(schema["User"] == nil && schema["Viewer"] == nil)
        #expect(schema["Query"]?.fields.map(\.name) == ["node", "kitties", "health", "class", "classes"])
        #expect(schema["Mutation"]?.fields.map(\.name).prefix(2) == ["addCat", "updateCat"])
        #expect(schema["Mutation"]?.field("signUp") == nil && schema["Mutation"]?.field("deleteCat") == nil)
        #expect(schema["Cat"]?.fields.map(\.name) == ["id", "objectId", "createdAt", "updatedAt", "ACL", "name"])
        #expect(schema["CreateCatFieldsInput"]?.inputFields.map(\.name) == ["ACL", "name"])
        #expect(schema["UpdateCatFieldsInput"]?.inputFields.count == 8)
        #expect(schema["CatWhereInput"]?.inputFields.map(\.name) == ["votes", "OR", "AND", "NOR"])
        #expect(schema["CatOrder"]?.enumValues.map(\.name) == ["votes_DESC"])
        // A pointer to a class left out is written as an Object.
        #expect(schema["UpdateCatFieldsInput"]?.inputFields.first { $0.name == "owner" }?.type == .named("Object"))
        #expect(schema["CatPointerInput"]?.inputFields.map(\.name) == ["link", "createAndLink"])
    }

    @Test func aGraphQLConfigurationIsCheckedAsParseServerChecksIt() {
        func problems(_ text: String) -> String? { ParseGraphQLConfig.problems(of: JSONValue.parse(text)) }
        #expect(problems(#"{"enabledForClasses":["Cat"],"classConfigs":[{"className":"Cat","query":{"get":true}}]}"#) == nil)
        #expect(problems("[]") == "Invalid graphQLConfig: must be a valid object")
        #expect(problems(#"{"invalidKey":true}"#) == "Invalid graphQLConfig: encountered invalid keys: [invalidKey]")
        #expect(problems(#"{"enabledForClasses":"Cat"}"#) == "Invalid graphQLConfig: \"enabledForClasses\" is not a valid array")
        #expect(problems(#"{"classConfigs":[{"className":"_User","type":{"inputFields":{"create":["email"]}}}]}"#)
                    == "Invalid graphQLConfig: classConfig:_User is invalid because \"inputFields.create\" must include required fields, username and password")
        #expect(problems(#"{"classConfigs":[{"className":"Cat","mutation":{"destroy":"no"}}]}"#)
                    == "Invalid graphQLConfig: classConfig:Cat is invalid because \"mutation.destroy\" must be a boolean")
    }

    @Test func schemaFieldsInputsAreParseFields() throws {
        let input = GraphQLData(json: JSONValue.parse("""
            {"addStrings":[{"name":"title"}],"addPointers":[{"name":"owner","targetClassName":"_User"}],
             "addGeoPoint":{"name":"place"},"remove":[{"name":"old"},{"name":"title"}]}
            """)!)
        #expect(try ParseSchemaGraphQL.parseFields(input, existing: nil) == [
            "owner": JSONValue.parse(#"{"type":"Pointer","targetClass":"_User"}"#)!, "place": JSONValue.parse(#"{"type":"GeoPoint"}"#)!,
        ])
        #expect(try ParseSchemaGraphQL.parseFields(input, existing: ["old": .object(["type": .string("String")])])["old"]
                    == JSONValue.parse(#"{"__op":"Delete"}"#))
        #expect(throws: ParseError(.invalidKeyName, "Duplicated field name: owner")) {
            try ParseSchemaGraphQL.parseFields(input, existing: ["owner": .object(["type": .string("String")])])
        }
    }

    @Test func findQueriesArePluralAsParseServerNamesThem() {
        let plurals = ["cat": "cats", "wallPost": "wallPosts", "gameScore": "gameScores", "user": "users", "person": "people",
                       "status": "statuses", "pushStatus": "pushStatuses", "category": "categories", "box": "boxes",
                       "leaf": "leaves", "news": "news", "key": "keys", "audience": "audiences", "idempotency": "idempotencies",
                       "class": "classes", "wish": "wishes", "child": "children", "fireman": "firemen"]
        for (singular, plural) in plurals {
            #expect(Pluralization.plural(singular) == plural, "\(singular)")
        }
    }

    @Test func globalIdsAndCursorsAreGraphQLRelays() {
        #expect(RelayIdentifiers.globalID(className: "Cat", objectId: "abc") == "Q2F0OmFiYw==")
        #expect(RelayIdentifiers.objectId("Q2F0OmFiYw==", of: "Cat") == "abc")
        #expect(RelayIdentifiers.objectId("Q2F0OmFiYw==", of: "Dog") == "Q2F0OmFiYw==")
        #expect(RelayIdentifiers.objectId("abc", of: "Cat") == "abc")
        #expect(RelayIdentifiers.cursor(offset: 2) == "YXJyYXljb25uZWN0aW9uOjI=")
        #expect(RelayIdentifiers.offset(cursor: "YXJyYXljb25uZWN0aW9uOjI=") == 2)
        #expect(RelayIdentifiers.offset(cursor: "nonsense") == nil)
    }

    @Test func relayPagingIsSkipAndLimit() throws {
        func page(skip: Int? = nil, first: Int? = nil, after: Int? = nil, last: Int? = nil, before: Int? = nil) throws -> ParseObjectQueries.Page {
            try ParseObjectQueries.page(skip: skip, first: first, after: after.map { RelayIdentifiers.cursor(offset: $0) }, last: last,
                                        before: before.map { RelayIdentifiers.cursor(offset: $0) })
        }
        let firstAfter = try page(first: 10, after: 4)
        #expect(firstAfter.skip == 5 && firstAfter.limit == 10)
        let skipFirstLast = try page(skip: 2, first: 10, last: 3)
        #expect(skipFirstLast.skip == 9 && skipFirstLast.limit == 3)
        let before = try page(skip: 1, before: 5)
        #expect(before.skip == 1 && before.limit == 4)
        let last = try page(last: 3)
        #expect(last.limit == 3 && last.needsCountFirst)
        #expect(throws: ParseError(.invalidQuery, "Skip should be a positive number")) { try page(skip: -1) }
        #expect(throws: ParseError(.invalidQuery, "First should be a positive number")) { try page(first: -1) }
        #expect(throws: ParseError(.invalidQuery, "After is not a valid cursor")) {
            try ParseObjectQueries.page(skip: nil, first: nil, after: "nonsense", last: nil, before: nil)
        }
    }
}
