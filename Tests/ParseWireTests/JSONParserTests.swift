import Foundation
@testable import ParseWire
import Runtime
import Testing

/// `JSONValue.parse` against Foundation's decoder (what it replaced) on valid text, and against JSON's grammar on
/// text `JSON.parse` refuses.
@Suite struct JSONParserTests {
    static func foundation(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test(arguments: [
        "{}", "[]", #""""#, #""a""#, "0", "-0", "7", "-12", "1.5", "1e3", "-1.25E-2", "2.5e+10", "0.1",
        "123456789012345", "1234567890123456789", "123456789012345678901234567890", "9007199254740993",
        "true", "false", "null", " \t\n\r[ 1 , 2 ]\n",
        #"{"a":{"b":[1,{"c":null}],"d":"e"},"f":[[],{}]}"#,
        #""\" \\ \/ \b \f \n \r \t""#, #""\u00e9\u0041\u20ac""#, #""\ud83d\ude00 smile""#, #""héllo 😀 ✓""#,
        #"{"__type":"Date","iso":"2026-11-30T14:02:51.492Z"}"#, #"["*","role:admin","Tq1x9bcd0A"]"#,
        #"{"where":"{\"name\":{\"$regex\":\"^T\"}}","limit":"25"}"#,
    ])
    func readsWhatFoundationReads(_ text: String) throws {
        let expected = try #require(Self.foundation(text))
        #expect(JSONValue.parse(text) == expected)
        #expect(JSONValue.parse(Array(text.utf8)) == expected)
    }

    @Test(arguments: [
        "", " ", "{", "[", "[1,]", #"{"a":1,}"#, "01", "-", "1.", ".5", "+1", "1e", "1e+", "--1", #""abc"#,
        #""a\x""#, #""\u12""#, #""\u12G4""#, "tru", "nul", "falsy", "[1 2]", #"{"a" 1}"#, "{a:1}", "{1:2}",
        "\"tab\there\"", "\"line\nbreak\"", "1 2", "NaN", "Infinity", "[1]]", "{}}", "'single'", "[,1]",
    ])
    func refusesWhatIsNotJSON(_ text: String) {
        #expect(JSONValue.parse(text) == nil)
    }

    @Test func theLastOfTwoEqualKeysWins() {
        #expect(JSONValue.parse(#"{"a":1,"a":2}"#) == .object(["a": .number(2)]))
    }

    @Test func loneSurrogatesAndInvalidUTF8ReadAsReplacementCharacters() {
        #expect(JSONValue.parse(#""x\ud800y""#) == .string("x\u{FFFD}y"))
        #expect(JSONValue.parse(#""\udc00""#) == .string("\u{FFFD}"))
        #expect(JSONValue.parse([0x22, 0x61, 0xFF, 0x62, 0x22]) == .string("a\u{FFFD}b"))
    }

    @Test func nestingIsBoundedInsteadOfExhaustingTheStack() {
        let deep = String(repeating: "[", count: JSONParser<JSONValue>.maxDepth) + String(repeating: "]", count: JSONParser<JSONValue>.maxDepth)
        #expect(JSONValue.parse(deep) != nil)
        let deeper = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(JSONValue.parse(deeper) == nil)
    }

    /// Random documents written by Foundation's encoder read back equal.
    @Test func readsBackRandomDocuments() throws {
        var generator = SplitMix64(seed: 42)
        let encoder = JSONEncoder()
        for _ in 0..<300 {
            let value = Self.randomValue(depth: 0, using: &generator)
            let text = String(decoding: try encoder.encode(value), as: UTF8.self)
            #expect(JSONValue.parse(text) == value, "\(text)")
        }
    }

    static func randomValue(depth: Int, using generator: inout SplitMix64) -> JSONValue {
        switch Int.random(in: depth > 3 ? 0...3 : 0...5, using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2:
            let number = [Double(Int.random(in: -1_000_000...1_000_000, using: &generator)),
                          Double.random(in: -1e6...1e6, using: &generator), Double.random(in: -1...1, using: &generator) * 1e-9]
            return .number(number[Int.random(in: 0...2, using: &generator)])
        case 3: return .string(randomString(using: &generator))
        case 4: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            var fields: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                fields[randomString(using: &generator)] = randomValue(depth: depth + 1, using: &generator)
            }
            return .object(fields)
        }
    }

    static func randomString(using generator: inout SplitMix64) -> String {
        let pieces = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "é", "€", "😀", "$regex", "__type"]
        return (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &generator)] }.joined()
    }
}

