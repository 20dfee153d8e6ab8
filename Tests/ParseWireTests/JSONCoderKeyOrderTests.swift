import Foundation
@testable import ParseWire
import Testing

/// Objects are written in key order whatever order their members come in, and read by the last value of a key
/// written twice: the encoder keeps members that come in order where they are and rewrites the others, and the
/// decoder finds members in a list instead of a dictionary.
@Suite struct JSONCoderKeyOrderTests {
    /// Writes `members` in the order given, through a keyed container (and, for `deferred`, a nested one).
    struct Members: Encodable {
        var members: [(String, Int)]
        var deferred: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: JSONCodingKey.self)
            for (key, value) in members { try container.encode(value, forKey: JSONCodingKey(stringValue: key)) }
            if let deferred {
                var nested = container.nestedContainer(keyedBy: JSONCodingKey.self, forKey: JSONCodingKey(stringValue: deferred))
                try nested.encode(true, forKey: JSONCodingKey(stringValue: "z"))
                try nested.encode(false, forKey: JSONCodingKey(stringValue: "a"))
            }
        }
    }

    static func text(_ value: some Encodable) throws -> String {
        String(decoding: try JSONValueEncoder().encode(value), as: UTF8.self)
    }

    @Test func membersInOrderAndOutOfOrderGiveTheSameText() throws {
        #expect(try Self.text(Members(members: [("a", 1), ("b", 2), ("c", 3)])) == #"{"a":1,"b":2,"c":3}"#)
        #expect(try Self.text(Members(members: [("c", 3), ("a", 1), ("b", 2)])) == #"{"a":1,"b":2,"c":3}"#)
        #expect(try Self.text(Members(members: [])) == "{}")
        #expect(try Self.text([Members(members: [("b", 2), ("a", 1)]), Members(members: [("a", 1)])])
                == #"[{"a":1,"b":2},{"a":1}]"#)
    }

    @Test func aKeyWrittenTwiceKeepsItsLastValue() throws {
        #expect(try Self.text(Members(members: [("a", 1), ("b", 2), ("a", 3)])) == #"{"a":3,"b":2}"#)
        #expect(try Self.text(Members(members: [("a", 1), ("a", 2)])) == #"{"a":2}"#)
    }

    @Test func aNestedContainerTakesItsPlaceInKeyOrder() throws {
        #expect(try Self.text(Members(members: [("a", 1), ("c", 3)], deferred: "b")) == #"{"a":1,"b":{"a":false,"z":true},"c":3}"#)
        #expect(try Self.text(Members(members: [("a", 1)], deferred: "b")) == #"{"a":1,"b":{"a":false,"z":true}}"#)
    }

    @Test func aMemberThatFailsLeavesNothingBehind() throws {
        struct Partial: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: JSONCodingKey.self)
                try container.encode(1, forKey: JSONCodingKey(stringValue: "a"))
                _ = try? container.encode(Double.nan, forKey: JSONCodingKey(stringValue: "b"))
                _ = try? container.encode([["x": 1.0, "y": .infinity]], forKey: JSONCodingKey(stringValue: "c"))
                try container.encode(4, forKey: JSONCodingKey(stringValue: "d"))
            }
        }
        #expect(try Self.text(Partial()) == #"{"a":1,"d":4}"#)
        #expect(try JSONValueEncoder().encodeValue(Partial()) == (try JSONValue.parse(Array(JSONEncoder().encode(Partial())))))
    }

    struct Named: Decodable, Equatable {
        var name: String
        var tags: [String: String]
        var any: JSONValue
    }

    @Test func aKeyReadTwiceCountsWithItsLastValue() throws {
        let text = #"{"name":"first","tags":{"k":"1","k":"2"},"any":{"x":1,"x":[2]},"name":"last"}"#
        let named = try JSONValueDecoder().decode(Named.self, from: Array(text.utf8))
        #expect(named == Named(name: "last", tags: ["k": "2"], any: .object(["x": .array([.number(2)])])))
    }

    @Test(arguments: [3, KeyedValueDecoding<JSONCodingKey>.indexedFrom, 500])
    func dictionariesOfAnySizeReadTheirLastValues(count: Int) throws {
        let members = (0..<count).map { #""k\#($0)":\#($0)"# } + [#""k0":-1"#]
        let dictionary = try JSONValueDecoder().decode([String: Int].self, from: Array("{\(members.joined(separator: ","))}".utf8))
        #expect(dictionary.count == count)
        #expect(dictionary["k0"] == -1 && dictionary["k\(count - 1)"] == count - 1)
    }

    @Test func allKeysNamesEachKeyOnce() throws {
        struct Keys: Decodable {
            var keys: [String]
            init(from decoder: any Decoder) throws {
                keys = try decoder.container(keyedBy: JSONCodingKey.self).allKeys.map(\.stringValue)
            }
        }
        let keys = try JSONValueDecoder().decode(Keys.self, from: Array(#"{"b":1,"a":2,"b":3}"#.utf8)).keys
        #expect(keys.sorted() == ["a", "b"])
    }
}
