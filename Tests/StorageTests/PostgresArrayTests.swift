@testable import Storage
import Testing

/// The array codec: literals PostgreSQL reads, and PostgreSQL's printed arrays read back.
@Suite struct PostgresArrayTests {
    static let awkward: [String?] = ["plain", "", "a,b", "{braces}", #"say "hi""#, #"back\slash"#, "two words", "NULL",
                                     "null", nil, "ünïcødé 🐈", " padded ", "\\\""]

    @Test func literalsQuoteEveryElement() {
        #expect(PostgresArray.literal(["*", "a\"b", "c\\d", "role:x,y"]) == #"{"*","a\"b","c\\d","role:x,y"}"#)
        #expect(PostgresArray.literal([String]()) == "{}")
        #expect(PostgresArray.literal(["x", nil]) == #"{"x",NULL}"#)
        #expect(PostgresArray.literal(["\"q\\", "\"\"", #"{"ballotId":"b"}"#]) == #"{"\"q\\","\"\"","{\"ballotId\":\"b\"}"}"#)
        #expect(PostgresArray.literal(numbers: [1, 2.5, nil]) == "{1.0,2.5,NULL}")
        #expect(PostgresArray.literal(numbers: [3, nil] as [Int?]) == "{3,NULL}")
    }

    @Test func literalsReadBack() {
        #expect(PostgresArray.parse(PostgresArray.literal(Self.awkward)) == Self.awkward)
    }

    /// The forms PostgreSQL prints (`array_out`): quotes only where needed.
    @Test(arguments: [
        ("{}", [] as [String?]),
        ("{a,b}", ["a", "b"]),
        (#"{"a,b","{x}",""}"#, ["a,b", "{x}", ""]),
        (#"{"say \"hi\"","back\\slash"}"#, [#"say "hi""#, #"back\slash"#]),
        (#"{NULL,"NULL",null}"#, [nil, "NULL", nil]),
        (#"{"two words",ünïcødé,🐈}"#, ["two words", "ünïcødé", "🐈"]),
        ("{ a , b }", ["a", "b"]),
        (#"{a\,b}"#, ["a,b"]),
        (#"{"role:x",user1}"#, ["role:x", "user1"]),
    ])
    func parsesWhatPostgreSQLPrints(text: String, expected: [String?]) {
        #expect(PostgresArray.parse(text) == expected)
    }

    @Test(arguments: ["", "a,b", "{a", "{\"a}", "{{a},{b}}", "[0:1]={a,b}", "{a,,b}", "{a}x", #"{"a"b}"#])
    func refusesWhatIsNotAOneDimensionalArray(text: String) {
        #expect(PostgresArray.parse(text) == nil)
    }

    @Test func stringsLeaveOutNullsAndMalformedText() {
        #expect(PostgresArray.strings(#"{"*",NULL,role:a}"#) == ["*", "role:a"])
        #expect(PostgresArray.strings("oops") == [])
    }
}
