import Foundation
@testable import ParseWire
import Testing

/// `JSONValueEncoder` and `JSONValueDecoder` give and take what Foundation's coders do for the same types.
@Suite struct JSONValueCoderTests {
    struct Inner: Codable, Equatable {
        var name: String
        var tags: [String]
        var score: Double?
    }

    enum Mood: String, Codable { case calm, loud }

    struct Outer: Codable, Equatable {
        var id: Int
        var flag: Bool
        var ratio: Float
        var small: UInt8
        var mood: Mood
        var inner: Inner
        var list: [Inner]
        var matrix: [[Int]]
        var headers: [String: String]
        var counts: [String: Int]
        var optionalInner: Inner?
        var maybe: String?
        var any: JSONValue
        var blob: Data
        var optionals: [Int?]
    }

    static let sample = Outer(
        id: -42, flag: true, ratio: 0.1, small: 255, mood: .loud,
        inner: Inner(name: "Tōm \"the\" cat\n\t\\ \u{01} 😀 </a>", tags: ["a", "", "b,c"], score: 2.5),
        list: [Inner(name: "x", tags: [], score: nil), Inner(name: "y", tags: ["z"], score: -0.001)],
        matrix: [[1, 2], [], [3]], headers: ["user-agent": "sdk", "é": "ü"], counts: ["a": 1, "b": 9_007_199_254_740_992],
        optionalInner: nil, maybe: nil,
        any: .object(["k": .array([.null, .bool(false), .number(1e21), .string("s")])]),
        blob: Data([0, 1, 2, 250, 255]), optionals: [1, nil, 3])

    static func foundation<T: Encodable>(_ value: T) throws -> JSONValue {
        try #require(JSONValue.parse(Array(try JSONEncoder().encode(value))))
    }

    @Test func encodesWhatFoundationEncodes() throws {
        #expect(try JSONValueEncoder().encodeValue(Self.sample) == (try Self.foundation(Self.sample)))
    }

    @Test func roundTripsThroughBytes() throws {
        let bytes = try JSONValueEncoder().encode(Self.sample)
        #expect(try JSONValueDecoder().decode(Outer.self, from: bytes) == Self.sample)
        #expect(try JSONDecoder().decode(Outer.self, from: Data(bytes)) == Self.sample)
        #expect(try JSONValueDecoder().decode(Outer.self, from: Array(try JSONEncoder().encode(Self.sample))) == Self.sample)
    }

    @Test func bytesAreTheOneWritersText() throws {
        let value = try JSONValueEncoder().encodeValue(Self.sample)
        #expect(try JSONValueEncoder().encode(Self.sample) == JSONText.bytes(value))
        let text = String(decoding: try JSONValueEncoder().encode(Self.sample.inner), as: UTF8.self)
        #expect(text == #"{"name":"Tōm \"the\" cat\n\t\\ \u0001 😀 </a>","score":2.5,"tags":["a","","b,c"]}"#)
    }

    @Test func absentOptionalsAreLeftOutAndExplicitNullsKept() throws {
        let value = try JSONValueEncoder().encodeValue(Self.sample)
        #expect(value["maybe"] == nil && value["optionalInner"] == nil)
        #expect(value["list"]?.arrayValue?.first?["score"] == nil)
        #expect(value["optionals"] == .array([.number(1), .null, .number(3)]))
        let back = try JSONValueDecoder().decode(Inner.self, from: .object(["name": .string("n"), "tags": .array([]), "score": .null]))
        #expect(back == Inner(name: "n", tags: [], score: nil))
    }

    @Test func datesAreParseDates() throws {
        struct Stamped: Codable, Equatable { var at: Date }
        let stamped = Stamped(at: Date(timeIntervalSince1970: 1_796_047_371.492))
        let value = try JSONValueEncoder().encodeValue(stamped)
        #expect(value == .object(["at": .string("2026-11-30T14:02:51.492Z")]))
        #expect(try JSONValueDecoder().decode(Stamped.self, from: value) == stamped)
        let error = #expect(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Stamped.self, from: .object(["at": .string("yesterday")]))
        }
        guard case .dataCorrupted(let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(context.codingPath.map(\.stringValue) == ["at"])
    }

    /// A type that codes itself through nested containers and super encoders, as hand-written conformances may.
    struct Layered: Codable, Equatable {
        var base: String
        var point: (x: Int, y: Int)
        var pairs: [[String]]
        var parent: Inner

        enum CodingKeys: String, CodingKey { case base, point, pairs, parent }
        enum PointKeys: String, CodingKey { case x, y }

        init(base: String, point: (x: Int, y: Int), pairs: [[String]], parent: Inner) {
            self.base = base
            self.point = point
            self.pairs = pairs
            self.parent = parent
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            base = try container.decode(String.self, forKey: .base)
            let point = try container.nestedContainer(keyedBy: PointKeys.self, forKey: .point)
            self.point = (try point.decode(Int.self, forKey: .x), try point.decode(Int.self, forKey: .y))
            var outer = try container.nestedUnkeyedContainer(forKey: .pairs)
            var pairs: [[String]] = []
            while !outer.isAtEnd {
                var inner = try outer.nestedUnkeyedContainer()
                var pair: [String] = []
                while !inner.isAtEnd { pair.append(try inner.decode(String.self)) }
                pairs.append(pair)
            }
            self.pairs = pairs
            parent = try Inner(from: try container.superDecoder())
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var point = container.nestedContainer(keyedBy: PointKeys.self, forKey: .point)
            try point.encode(self.point.x, forKey: .x)
            try container.encode(base, forKey: .base)
            try point.encode(self.point.y, forKey: .y)
            var outer = container.nestedUnkeyedContainer(forKey: .pairs)
            for pair in pairs {
                var inner = outer.nestedUnkeyedContainer()
                for item in pair { try inner.encode(item) }
            }
            try parent.encode(to: container.superEncoder())
        }

        static func == (a: Layered, b: Layered) -> Bool {
            a.base == b.base && a.point == b.point && a.pairs == b.pairs && a.parent == b.parent
        }
    }

    @Test func nestedContainersAndSuperEncoders() throws {
        let layered = Layered(base: "b", point: (3, -4), pairs: [["a", "b"], [], ["c"]],
                              parent: Inner(name: "p", tags: ["t"], score: 1))
        let value = try JSONValueEncoder().encodeValue(layered)
        #expect(value == (try Self.foundation(layered)))
        #expect(value["super"]?["name"] == .string("p"))
        #expect(try JSONValueDecoder().decode(Layered.self, from: value) == layered)
    }

    @Test func unkeyedSuperEncodersTakeTheNextPlace() throws {
        struct Row: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                try container.encode("first")
                try "second".encode(to: container.superEncoder())
                try container.encode("third")
            }
        }
        #expect(try JSONValueEncoder().encodeValue(Row()) == .array([.string("first"), .string("second"), .string("third")]))
    }

    // MARK: errors

    static func decodingError<T: Decodable>(_ type: T.Type, _ text: String) throws -> DecodingError? {
        let bytes = Array(text.utf8)
        return #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(type, from: bytes) }
    }

    @Test func aMissingKeyNamesItsPath() throws {
        let error = try Self.decodingError(Outer.self, #"{"id":1,"flag":true,"ratio":1,"small":1,"mood":"calm","inner":{"name":"n","tags":[]},"list":[{"name":"x"}]}"#)
        guard case .keyNotFound(let key, let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(key.stringValue == "tags")
        #expect(context.codingPath.map(\.stringValue) == ["list", "Index 0"])
    }

    @Test func aWrongTypeNamesItsPath() throws {
        let error = try Self.decodingError(Inner.self, #"{"name":"n","tags":["a",2]}"#)
        guard case .typeMismatch(let type, let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(String.self))
        #expect(context.codingPath.map(\.stringValue) == ["tags", "Index 1"])
        let nested = try Self.decodingError([String: [Int]].self, #"{"a":[1,2.5]}"#)
        guard case .dataCorrupted(let corrupted)? = nested else { Issue.record("\(String(describing: nested))"); return }
        #expect(corrupted.codingPath.map(\.stringValue) == ["a", "Index 1"])
    }

    @Test func nullForARequiredValue() throws {
        let error = try Self.decodingError(Inner.self, #"{"name":null,"tags":[]}"#)
        guard case .valueNotFound(_, let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(context.codingPath.map(\.stringValue) == ["name"])
    }

    @Test(arguments: ["", "{", #"{"name":"n",}"#, "[1 2]", #""\x""#, "nul"])
    func malformedJSON(_ text: String) throws {
        let error = try Self.decodingError(JSONValue.self, text)
        guard case .dataCorrupted(let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(context.codingPath.isEmpty)
    }

    @Test func numbersOutOfRange() throws {
        let error = try Self.decodingError([UInt8].self, "[1,256]")
        guard case .dataCorrupted(let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(context.codingPath.map(\.stringValue) == ["Index 1"])
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encodeValue(["x": Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encodeValue([Int64.max]) }
        #expect(try JSONValueEncoder().encodeValue([9_007_199_254_740_992]) == .array([.number(9_007_199_254_740_992)]))
    }
}
