import Contracts
import ParseWire
import Query
import Runtime
import Testing

/// parse-server 9's `requestComplexity` limits: what they count, their errors, and who they do not apply to.
@Suite struct RequestComplexityTests {
    private let client = Identity(userId: "u1")

    private func refusal(_ check: () throws(ParseError) -> Void) -> String? {
        do throws(ParseError) {
            try check()
            return nil
        } catch {
            return "\(error.code.rawValue) \(error.message)"
        }
    }

    private func clause(_ text: String) -> [String: JSONValue] { JSONValue.parse(text)?.objectValue ?? [:] }

    @Test func includePathsCountWithEveryPrefixAndTheirDepthIsTheLongest() {
        let limits = RequestComplexity(includeCount: 3, includeDepth: 3)
        #expect(refusal { () throws(ParseError) in try limits.check(include: ["a.b.c"], identity: client) } == nil)
        #expect(refusal { () throws(ParseError) in try limits.check(include: ["a.b.c", "a.d"], identity: client) }
                == "102 Number of include fields (4) exceeds maximum allowed (3)")
        #expect(refusal { () throws(ParseError) in try limits.check(include: ["a.b.c.d"], identity: client) }
                == "102 Include depth of 4 exceeds maximum allowed depth of 3")
        #expect(refusal { () throws(ParseError) in try limits.check(include: ["a.b.c.d"], identity: .master) } == nil)
        #expect(refusal { () throws(ParseError) in
            try limits.check(include: ["a.b.c.d"], identity: Identity(isReadOnlyMaster: true))
        } == nil)
    }

    @Test func logicalOperatorsCountWhereverTheyAreNested() {
        let limits = RequestComplexity(queryDepth: 2)
        let two = clause(#"{"$or":[{"$and":[{"a":1}]}]}"#)
        let threeUnderAField = clause(#"{"f":{"$elemMatch":{"$or":[{"$and":[{"$nor":[{"a":1}]}]}]}}}"#)
        #expect(refusal { () throws(ParseError) in try limits.check(where: two, identity: client) } == nil)
        #expect(refusal { () throws(ParseError) in try limits.check(where: threeUnderAField, identity: client) }
                == "102 Query condition nesting depth exceeds maximum allowed depth of 2")
        #expect(refusal { () throws(ParseError) in try limits.check(subscription: threeUnderAField) }
                == "102 Query condition nesting depth exceeds maximum allowed depth of 2")
        #expect(refusal { () throws(ParseError) in try limits.check(where: threeUnderAField, identity: .master) } == nil)
    }

    @Test func subqueriesCountFromTheDepthTheQueryIsAtItself() {
        let limits = RequestComplexity(subqueryDepth: 1)
        let one = clause(#"{"p":{"$inQuery":{"className":"A","where":{"x":1}}}}"#)
        let two = clause(#"{"p":{"$inQuery":{"className":"A","where":{"q":{"$select":{"query":{"className":"B","where":{}},"key":"k"}}}}}}"#)
        let message = "102 Subquery nesting depth exceeds maximum allowed depth of 1"
        #expect(refusal { () throws(ParseError) in try limits.check(where: one, identity: client) } == nil)
        #expect(refusal { () throws(ParseError) in try limits.check(where: two, identity: client) } == message)
        // The same inner query sent by another service one level down.
        #expect(refusal { () throws(ParseError) in try limits.check(where: one, subqueryDepth: 1, identity: client) } == message)
        #expect(refusal { () throws(ParseError) in try limits.check(where: [:], subqueryDepth: 2, identity: client) } == message)
    }

    @Test func theLimitsAreOffUnlessSetAndZeroIsRefused() throws {
        #expect(try RequestComplexity.fromEnvironment(Environment([:])) == .unlimited)
        let set = try RequestComplexity.fromEnvironment(Environment([
            "PARSE_SERVER_REQUEST_COMPLEXITY_INCLUDE_COUNT": "50", "PARSE_SERVER_REQUEST_COMPLEXITY_INCLUDE_DEPTH": "5",
            "PARSE_SERVER_REQUEST_COMPLEXITY_QUERY_DEPTH": "10", "PARSE_SERVER_REQUEST_COMPLEXITY_SUBQUERY_DEPTH": "3",
        ]))
        #expect(set == RequestComplexity(includeCount: 50, includeDepth: 5, queryDepth: 10, subqueryDepth: 3))
        #expect(throws: ConfigurationError.self) {
            try RequestComplexity.fromEnvironment(Environment(["PARSE_SERVER_REQUEST_COMPLEXITY_QUERY_DEPTH": "0"]))
        }
        let deep = clause(String(repeating: #"{"$or":["#, count: 50) + "{}" + String(repeating: "]}", count: 50))
        #expect(refusal { () throws(ParseError) in try RequestComplexity.unlimited.check(where: deep, identity: client) } == nil)
    }
}
