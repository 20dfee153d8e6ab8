import ParseWire
import Testing
@testable import Query

struct RegexPatternTests {
    /// How every official SDK quotes the text of `startsWith`, `endsWith` and `contains`: `\Q...\E`, with an `\E`
    /// inside the text written as `\E\\E\Q`.
    static func quote(_ text: String) -> String {
        "\\Q" + text.replacingOccurrences(of: "\\E", with: "\\E\\\\E\\Q") + "\\E"
    }

    @Test(arguments: [
        ("^" + quote("bar"), "^bar"),
        (quote("bar") + "$", "bar$"),
        (quote("bar"), "bar"),
        ("^" + quote("a.b*c?"), #"^a\.b\*c\?"#),
        (quote("/[a-z](x)|{1}^$ "), #"\/\[a\-z\]\(x\)\|\{1\}\^\$\ "#),
        (quote("it's \"quoted\""), #"it\'s\ \"quoted\""#),
        (quote("naïve café 東京"), #"naïve\ café\ 東京"#),
        (quote(#"back\slash"#), #"back\\slash"#),
        ("^\\Qopen ended", #"^open\ ended"#),
        ("a\\E.b", "a.b"),
        (#"^\d+\s\w$"#, #"^\d+\s\w$"#),
        (#"\\Qx"#, #"\\Qx"#),
    ])
    func quotesLiteralTextForPostgreSQL(pattern: String, expected: String) throws {
        #expect(try RegexPattern(pattern).postgresPattern == expected)
    }

    @Test func anEscapedEndInsideTheTextStaysLiteral() throws {
        // `a\Eb` quoted by an SDK: `\Qa\E\\E\Qb\E`; the text is a, backslash, E, b.
        #expect(try RegexPattern(Self.quote(#"a\Eb"#)).postgresPattern == #"a\\Eb"#)
    }

    @Test(arguments: [#"(a)\1"#, #"^(x+)\2$"#, #"(\w)\9"#])
    func refusesBackReferences(pattern: String) {
        #expect(throws: ParseError.self) { try RegexPattern(pattern) }
        #expect((try? RegexPattern(pattern)) == nil)
    }

    @Test func aQuotedDigitIsNoBackReference() throws {
        #expect(try RegexPattern(Self.quote(#"\1"#)).postgresPattern == #"\\1"#)
    }

    @Test func refusesPatternsAboveTheLengthLimit() throws {
        _ = try RegexPattern(String(repeating: "a", count: RegexPattern.maximumLength))
        let error = try #require(throws: ParseError.self) {
            try RegexPattern(String(repeating: "a", count: RegexPattern.maximumLength + 1))
        }
        #expect(error.code == .invalidQuery)
    }

    @Test func refusesNUL() {
        #expect(throws: ParseError.self) { try RegexPattern("a\u{0}b") }
    }

    @Test func optionsBecomePostgreSQLsEmbeddedOptions() throws {
        let pattern = try RegexPattern("^" + Self.quote("a b"), options: "imx")
        #expect(pattern.postgresPattern == #"(?wx)^a\ b"#)
        #expect(pattern.sqlOperator == "~*")
        #expect(try RegexPattern("a", options: "s").sqlOperator == "~")
        let error = try #require(throws: ParseError.self) { try RegexPattern("a", options: "g") }
        #expect(error.message == "Bad $options value for query: g")
    }
}

struct RegexConstraintTests {
    func translate(_ json: String, _ mapping: any FieldMapping = TypedColumns()) async throws -> (String, [String?]) {
        let translator = WhereTranslator()
        let clause = try #require(JSONValue.parse(json)?.objectValue)
        let sql = try await translator.translate(clause, mapping, alias: "t0")
        return (sql, translator.parameters.values.map { $0?.postgresText })
    }

    @Test func startsWithIsQuotedForPostgreSQL() async throws {
        let (sql, values) = try await translate(#"{"name":{"$regex":"^\\Qa.b\\E"}}"#)
        #expect(sql == #"t0."name" ~ $1"#)
        #expect(values == [#"^a\.b"#])
    }

    @Test func aPathInsideAnObjectMatchesItsStrings() async throws {
        let (sql, values) = try await translate(#"{"meta.k":{"$regex":"^\\Qa.b\\E","$options":"i"}}"#)
        #expect(sql == #"(jsonb_typeof((t0."meta" #> $1::text[])) = 'string' AND ((t0."meta" #> $1::text[]) #>> '{}') ~* $2)"#)
        #expect(values == [#"{"k"}"#, #"^a\.b"#])
    }

    @Test func allOfRegexesNeedsEachPatternMatchedByAnElement() async throws {
        let (sql, values) = try await translate(#"{"tags":{"$all":[{"$regex":"^\\Qa\\E"},{"$regex":"^\\Qb\\E"}]}}"#)
        #expect(sql == #"(EXISTS (SELECT 1 FROM jsonb_array_elements(t0."tags") AS element(value) WHERE jsonb_typeof(element.value) = 'string' AND (element.value #>> '{}') ~ $1) AND EXISTS (SELECT 1 FROM jsonb_array_elements(t0."tags") AS element(value) WHERE jsonb_typeof(element.value) = 'string' AND (element.value #>> '{}') ~ $2))"#)
        #expect(values == ["^a", "^b"])
    }

    @Test func allMixingRegexesAndValuesIsRefusedAsParseServerDoes() async throws {
        let error = try await #require(throws: ParseError.self) {
            _ = try await translate(#"{"tags":{"$all":[{"$regex":"^\\Qa\\E"},"b",3,null]}}"#)
        }
        #expect(error.code == .invalidJSON)
        #expect(error.message == "All $all values must be of regex type or none: [object Object],b,3,")
    }

    @Test func allOfRegexesFollowsThePatternPolicy() async throws {
        let error = try await #require(throws: ParseError.self) {
            _ = try await translate(#"{"tags":{"$all":[{"$regex":"(a)\\1"}]}}"#)
        }
        #expect(error.code == .invalidQuery)
    }

    @Test func emptyMembershipOnAPathStillNamesThePath() async throws {
        let (sql, values) = try await translate(#"{"meta.k":{"$in":[]}}"#)
        #expect(sql == #"((t0."meta" #> $1::text[]) IS NULL AND FALSE)"#)
        #expect(values == [#"{"k"}"#])
    }

    @Test func membershipBindsOneArrayWhateverTheListsLength() async throws {
        let items = (0..<70_000).map(String.init).joined(separator: ",")
        let (sql, values) = try await translate(#"{"votes":{"$in":[\#(items),null]}}"#)
        #expect(sql == #"(t0."votes" = ANY($1::double precision[]) OR t0."votes" IS NULL)"#)
        #expect(values.count == 1)
        #expect(values.first??.hasPrefix(#"{"0.0","1.0","2.0""#) == true)
    }

    @Test func aDollarKeyIsAnInvalidKeyName() async throws {
        let error = try await #require(throws: ParseError.self) { _ = try await translate(#"{"$foo":"bar"}"#) }
        #expect(error.code == .invalidKeyName)
        #expect(error.message == "Invalid key name: $foo")
    }
}
