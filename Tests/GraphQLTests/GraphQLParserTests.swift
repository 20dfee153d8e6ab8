import GraphQL
import Testing

/// The parser against the GraphQL specification's own examples (October 2021, "Language"), and against documents
/// that are not GraphQL.
@Suite struct GraphQLParserTests {
    private func onlyOperation(_ source: String) throws -> GraphQLOperation {
        let document = try GraphQLParser.parse(source)
        try #require(document.operations.count == 1)
        return document.operations[0]
    }

    private func fields(_ selections: [GraphQLSelection]) -> [GraphQLField] {
        selections.compactMap { if case .field(let field) = $0 { field } else { nil } }
    }

    @Test func theShorthandQueryWithArgumentsAndAliases() throws {
        // Example No. 7 and the aliases of No. 15.
        let operation = try onlyOperation("""
            {
              user(id: 4) {
                id
                name
                smallPic: profilePic(size: 64)
                bigPic: profilePic(size: 1024)
              }
            }
            """)
        #expect(operation.type == .query)
        #expect(operation.name == nil)
        let user = try #require(fields(operation.selectionSet).first)
        #expect(user.name == "user")
        #expect(user.arguments.map(\.name) == ["id"])
        #expect(user.arguments.first?.value == .int("4"))
        #expect(user.arguments.first?.location == GraphQLLocation(line: 2, column: 8))
        let inner = fields(user.selectionSet)
        #expect(inner.map(\.responseKey) == ["id", "name", "smallPic", "bigPic"])
        #expect(inner.map(\.name) == ["id", "name", "profilePic", "profilePic"])
        #expect(inner[3].arguments.first?.value == .int("1024"))
        #expect(user.location == GraphQLLocation(line: 2, column: 3))
    }

    @Test func namedOperationsFragmentsAndSpreads() throws {
        // Example No. 20.
        let document = try GraphQLParser.parse("""
            query withFragments {
              user(id: 4) {
                friends(first: 10) {
                  ...friendFields
                }
                mutualFriends(first: 10) {
                  ...friendFields
                }
              }
            }

            fragment friendFields on User {
              id
              name
              profilePic(size: 50)
            }
            """)
        #expect(document.operations.map(\.name) == ["withFragments"])
        let fragment = try #require(document.fragments.first)
        #expect(fragment.name == "friendFields")
        #expect(fragment.typeCondition == "User")
        #expect(fields(fragment.selectionSet).map(\.name) == ["id", "name", "profilePic"])
        let user = try #require(fields(document.operations[0].selectionSet).first)
        let friends = try #require(fields(user.selectionSet).first)
        guard case .fragmentSpread(let name, let directives, _) = friends.selectionSet.first else {
            Issue.record("expected a fragment spread, got \(friends.selectionSet)")
            return
        }
        #expect(name == "friendFields")
        #expect(directives.isEmpty)
    }

    @Test func inlineFragmentsWithAndWithoutATypeCondition() throws {
        // Examples No. 26 and No. 27.
        let operation = try onlyOperation("""
            query inlineFragmentNoType($expandedInfo: Boolean) {
              user(handle: "zuck") {
                id
                ... on User { friends { count } }
                ... @include(if: $expandedInfo) {
                  firstName
                  lastName
                }
              }
            }
            """)
        #expect(operation.variables.map(\.name) == ["expandedInfo"])
        #expect(operation.variables.first?.type == .named("Boolean"))
        let user = try #require(fields(operation.selectionSet).first)
        #expect(user.arguments.first?.value == .string("zuck"))
        guard user.selectionSet.count == 3,
              case .inlineFragment(let typed, let none, let typedSelections, _) = user.selectionSet[1],
              case .inlineFragment(let untyped, let directives, let selections, _) = user.selectionSet[2] else {
            Issue.record("expected a field and two inline fragments, got \(user.selectionSet)")
            return
        }
        #expect(typed == "User")
        #expect(none.isEmpty)
        #expect(fields(typedSelections).map(\.name) == ["friends"])
        #expect(untyped == nil)
        #expect(directives.map(\.name) == ["include"])
        #expect(directives.first?.arguments.first?.value == .variable("expandedInfo"))
        #expect(fields(selections).map(\.name) == ["firstName", "lastName"])
    }

    @Test func variablesWithTypesAndDefaults() throws {
        let operation = try onlyOperation("""
            mutation likeStory($storyID: ID!, $sizes: [Int!] = [64, 128], $filter: Filter = {kind: RECENT, tags: ["a"]}) {
              like(story: $storyID) @skip(if: false) { story { likeCount } }
            }
            """)
        #expect(operation.type == .mutation)
        #expect(operation.name == "likeStory")
        #expect(operation.variables.map(\.type) == [.nonNull(.named("ID")), .list(.nonNull(.named("Int"))), .named("Filter")])
        #expect(operation.variables.map(\.type.description) == ["ID!", "[Int!]", "Filter"])
        #expect(operation.variables[1].defaultValue == .list([.int("64"), .int("128")]))
        #expect(operation.variables[2].defaultValue == .object([
            GraphQLObjectField(name: "kind", value: .enumValue("RECENT")),
            GraphQLObjectField(name: "tags", value: .list([.string("a")])),
        ]))
        let like = try #require(fields(operation.selectionSet).first)
        #expect(like.directives.first?.arguments.first?.value == .boolean(false))
    }

    @Test func aDefaultValueMayNotUseAVariable() {
        #expect(throws: GraphQLSyntaxError.self) {
            _ = try GraphQLParser.parse("query q($a: Int = $b) { f }")
        }
    }

    @Test func valuesOfEveryKind() throws {
        let value = try GraphQLParser.parseValue(#"""
            {int: -12, float: 1.5e-3, plain: "a\"b\\c\/d\n", unicode: "\u00e9\u{1F600}\uD83D\uDE00", empty: [],
             nothing: null, yes: true, color: RED, nested: [[1], {x: $v}]}
            """#)
        guard case .object(let members) = value else {
            Issue.record("expected an object, got \(value)")
            return
        }
        let byName = Dictionary(uniqueKeysWithValues: members.map { ($0.name, $0.value) })
        #expect(byName["int"] == .int("-12"))
        #expect(byName["float"] == .float("1.5e-3"))
        #expect(byName["plain"] == .string("a\"b\\c/d\n"))
        #expect(byName["unicode"] == .string("é😀😀"))
        #expect(byName["empty"] == .list([]))
        #expect(byName["nothing"] == .null)
        #expect(byName["yes"] == .boolean(true))
        #expect(byName["color"] == .enumValue("RED"))
        #expect(byName["nested"] == .list([.list([.int("1")]), .object([GraphQLObjectField(name: "x", value: .variable("v"))])]))
    }

    @Test func aBlockStringLosesItsCommonIndentationAndBlankEdges() throws {
        // The specification's example of a block string.
        let source = "{ f(text: \"\"\"\n\n    Hello,\n      World!\n\n    Yours,\n      GraphQL.\n  \"\"\") }"
        let field = try #require(fields(try onlyOperation(source).selectionSet).first)
        #expect(field.arguments.first?.value == .string("Hello,\n  World!\n\nYours,\n  GraphQL."))
        let escaped = try GraphQLParser.parseValue(#""""a \""" b""""#)
        #expect(escaped == .string(#"a """ b"#))
        let windows = try GraphQLParser.parseValue("\"\"\"\r\n  one\r\n  two\r\n\"\"\"")
        #expect(windows == .string("one\ntwo"))
    }

    @Test func commasCommentsAndTheByteOrderMarkAreIgnored() throws {
        let operation = try onlyOperation("\u{FEFF}# a comment\nquery Q { a, b,,, c # another\n }")
        #expect(fields(operation.selectionSet).map(\.name) == ["a", "b", "c"])
        #expect(operation.location == GraphQLLocation(line: 2, column: 1))
    }

    @Test func locationsCountCharactersAndLines() throws {
        let document = try GraphQLParser.parse("{ a(s: \"é😀\") b }\r\n{\n  c\n}")
        let first = fields(document.operations[0].selectionSet)
        #expect(first.map(\.location) == [GraphQLLocation(line: 1, column: 3), GraphQLLocation(line: 1, column: 14)])
        #expect(fields(document.operations[1].selectionSet).first?.location == GraphQLLocation(line: 3, column: 3))
    }

    @Test(arguments: [
        ("{", "Syntax Error: Expected Name, found <EOF>.", 1, 2),
        ("{ a(b: ) }", "Syntax Error: Unexpected \")\".", 1, 8),
        ("query { ...on }", "Syntax Error: Expected Name, found \"}\".", 1, 15),
        ("{ a }}", "Syntax Error: Unexpected \"}\".", 1, 6),
        ("fragment on on T { a }", "Syntax Error: Unexpected Name \"on\".", 1, 10),
        ("{ a(n: 0123) }", "Syntax Error: Invalid number, unexpected digit after 0: \"1\".", 1, 9),
        ("{ a(n: 1.) }", "Syntax Error: Invalid number, expected digit but got: \")\".", 1, 10),
        ("{ a(n: 12abc) }", "Syntax Error: Invalid number, expected digit but got: \"a\".", 1, 10),
        ("{ a(s: \"open) }", "Syntax Error: Unterminated string.", 1, 16),
        ("{ a(s: \"line\nbreak\") }", "Syntax Error: Unterminated string.", 1, 13),
        ("{ a(s: \"\\x\") }", "Syntax Error: Invalid character escape sequence: \"\\x\".", 1, 9),
        ("{ a(s: \"\\uDEAD\") }", "Syntax Error: Invalid Unicode escape sequence: \"\\uDEAD\".", 1, 9),
        ("{ a(s: \"\\u{110000}\") }", "Syntax Error: Invalid Unicode escape sequence: \"\\u{110000}\".", 1, 9),
        ("{ a ? }", "Syntax Error: Unexpected character: \"?\".", 1, 5),
        ("{ a .. }", "Syntax Error: Unexpected character: \".\".", 1, 5),
        ("{ a(s: \"\u{7}\") }", "Syntax Error: Invalid character within String: U+0007.", 1, 9),
        ("type Query { a: Int }", "Syntax Error: Unexpected Name \"type\": a request holds only operations and fragments.", 1, 1),
        ("", "Syntax Error: Unexpected <EOF>.", 1, 1),
    ])
    func documentsThatAreNotGraphQL(source: String, message: String, line: Int, column: Int) {
        #expect(throws: GraphQLSyntaxError(String(message.dropFirst("Syntax Error: ".count)),
                                           at: GraphQLLocation(line: line, column: column))) {
            _ = try GraphQLParser.parse(source)
        }
    }

    /// Nesting that would exhaust the stack of a parser that followed it is refused at a fixed depth.
    @Test func deepNestingIsRefusedNotFollowed() {
        let depth = 100_000
        let selections = String(repeating: "{a", count: depth) + String(repeating: "}", count: depth)
        let lists = "{ a(v: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + ") }"
        let types = "query q($v: " + String(repeating: "[", count: depth) + "Int" + String(repeating: "]", count: depth) + ") { a }"
        for source in [selections, lists, types] {
            do {
                _ = try GraphQLParser.parse(source)
                Issue.record("a document nested \(depth) levels deep was parsed")
            } catch {
                #expect(error.message == "Syntax Error: Document nests deeper than \(GraphQLParser.maximumDepth) levels.")
            }
        }
        let allowed = String(repeating: "{a", count: GraphQLParser.maximumDepth) + String(repeating: "}", count: GraphQLParser.maximumDepth)
        #expect((try? GraphQLParser.parse(allowed)) != nil)
    }

    @Test func tooManyTokensAreRefused() {
        let source = "{" + String(repeating: "a ", count: GraphQLParser.maximumTokens) + "}"
        #expect(throws: GraphQLSyntaxError.self) { _ = try GraphQLParser.parse(source) }
    }
}
