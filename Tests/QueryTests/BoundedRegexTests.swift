import Foundation
import ParseWire
import Runtime
import ScratchDatabase
import Storage
import Testing
@testable import Query

/// `$regex` in memory (live) with PCRE2 under limits, against the same patterns run by PostgreSQL (the SQL side).
struct BoundedRegexTests {
    /// (pattern, options, text): each matched in memory and by PostgreSQL, which must agree.
    static let shared: [(String, String, String)] = [
        ("^ab", "", "abc"), ("^ab", "", "cab"), ("bc$", "", "abc"), ("bc$", "", "abc\n"), ("a.c", "", "a\nc"),
        ("^b", "", "a\nb"), ("^b", "m", "a\nb"), ("a$", "m", "a\nb"), ("ABC", "i", "xabcx"), ("ABC", "", "xabcx"),
        ("a b c", "x", "abc"), ("a b # comment", "x", "ab"), (#"\Qa.b\E"#, "", "a.b"), (#"\Qa.b\E"#, "", "axb"),
        (#"^\Q(1+1)\E$"#, "", "(1+1)"), (#"\d+"#, "", "room 42"), (#"\w+@\w+"#, "", "me@host"), (#"\s"#, "", "a b"),
        ("[a-c]{2}", "", "xbcx"), ("colou?r", "", "color"), ("(cat|dog)s", "", "hotdogs"), ("é", "", "café"),
        ("É", "i", "café"), ("😀+", "", "ok 😀😀"), ("^$", "", ""), ("x*", "", ""), ("[^a]", "", "aaa"),
        (#"a\.b"#, "", "a.b"), (#"a\.b"#, "", "acb"), ("(?:ab)+", "", "ababab"), ("a{2,3}", "", "a"),
    ]

    @Test func aCatastrophicPatternGivesUpAtItsLimitInsteadOfHolding() throws {
        let regex = try BoundedRegex("(a+)+$")
        #expect(!regex.matches(String(repeating: "a", count: 30) + "!"))
        #expect(regex.exceededLimit)
        // An ordinary text is matched as usual by the same regex.
        let fresh = try BoundedRegex("(a+)+$")
        #expect(fresh.matches("aaaa"))
        #expect(!fresh.exceededLimit)
    }

    @Test func theMatcherSaysWhenASubscriptionsRegexIsTooCostly() throws {
        let matcher = try WhereMatcher(["name": .object(["$regex": .string("(a+)+$")])])
        #expect(!matcher.matches(["name": .string(String(repeating: "a", count: 30) + "!")]))
        #expect(matcher.exceededLimit)
        #expect(try WhereMatcher(["name": .object(["$regex": .string("^T")])]).matches(["name": .string("Tom")]))
    }

    @Test func aPatternPCRE2CannotCompileIsA102() {
        #expect(throws: ParseError.self) { try BoundedRegex("(") }
        #expect(throws: ParseError.self) { try BoundedRegex("[z-a]") }
    }

    @Test(.enabled(if: ScratchDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL"))
    func matchesAsPostgreSQLMatchesTheSamePatterns() async throws {
        try await ScratchDatabase.withPool("regex", logger: Logger(service: "query-tests", level: .warning)) { pool in
            for (pattern, options, text) in Self.shared {
                let sql = try RegexPattern(pattern, options: options)
                let row = try await pool.query("SELECT ($1::text \(sql.sqlOperator) $2::text) AS matched",
                                               [text, sql.postgresPattern]).first
                let inPostgres = row?["matched"] == "t"
                let inMemory = try BoundedRegex(pattern, options: options).matches(text)
                #expect(inMemory == inPostgres, "\(pattern) /\(options) on \(text.debugDescription): in memory \(inMemory), PostgreSQL \(inPostgres)")
            }
        }
    }
}
