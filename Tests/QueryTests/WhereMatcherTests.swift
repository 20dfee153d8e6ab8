import Foundation
import ParseWire
import Runtime
import ScratchDatabase
import Storage
import Testing
@testable import Query

/// One set of objects and queries, read both ways: in memory by `WhereMatcher` (as `live` does for objects that
/// change) and in SQL by `WhereTranslator` over the same objects stored as posts stores them. Both must pick the
/// same objects.
struct WhereMatcherTests {
    /// The objects as a REST read returns them.
    static let objects: [String: [String: JSONValue]] = [
        "a": parse(#"{"objectId":"a","createdAt":"2026-01-01T00:00:00.000Z","name":"Tom","votes":3,"tags":["x","y"],"owner":{"__type":"Pointer","className":"Person","objectId":"P1"},"meta":{"size":2},"stack":[{"s":"baz"},{"s":"bar"}]}"#),
        "b": parse(#"{"objectId":"b","createdAt":"2026-09-01T00:00:00.000Z","name":"tim","votes":10,"tags":["y"],"owner":{"__type":"Pointer","className":"Person","objectId":"P2"},"meta":{"size":5},"stack":[{"s":"bar","n":4}]}"#),
        "c": parse(#"{"objectId":"c","createdAt":"2026-03-01T00:00:00.000Z"}"#),
    ]

    static func parse(_ text: String) -> [String: JSONValue] { JSONValue.parse(text)?.objectValue ?? [:] }

    static let cases: [(String, [String])] = [
        (#"{"name":"Tom"}"#, ["a"]),
        (#"{"name":{"$eq":"tim"}}"#, ["b"]),
        (#"{"votes":{"$gt":3}}"#, ["b"]),
        (#"{"votes":{"$gte":3,"$lt":10}}"#, ["a"]),
        (#"{"votes":{"$ne":3}}"#, ["b", "c"]),
        (#"{"name":{"$in":["Tom","x"]}}"#, ["a"]),
        (#"{"name":{"$nin":["Tom"]}}"#, ["b", "c"]),
        (#"{"votes":{"$exists":false}}"#, ["c"]),
        (#"{"votes":{"$exists":true}}"#, ["a", "b"]),
        (#"{"tags":"x"}"#, ["a"]),
        (#"{"tags":{"$all":["x","y"]}}"#, ["a"]),
        (#"{"tags":{"$in":["y"]}}"#, ["a", "b"]),
        (#"{"tags":{"$containedBy":["y","z"]}}"#, ["b"]),
        (#"{"owner":{"__type":"Pointer","className":"Person","objectId":"P2"}}"#, ["b"]),
        (#"{"name":{"$regex":"^t","$options":"i"}}"#, ["a", "b"]),
        (#"{"name":{"$regex":"^t"}}"#, ["b"]),
        (#"{"$or":[{"name":"Tom"},{"votes":10}]}"#, ["a", "b"]),
        (#"{"$and":[{"tags":"y"},{"votes":{"$lt":5}}]}"#, ["a"]),
        (#"{"$nor":[{"name":"Tom"}]}"#, ["b", "c"]),
        (#"{"meta.size":{"$gt":3}}"#, ["b"]),
        (#"{"createdAt":{"$gt":{"__type":"Date","iso":"2026-02-01T00:00:00.000Z"}}}"#, ["b", "c"]),
        (#"{"name":null}"#, ["c"]),
        (#"{"stack.s":"bar"}"#, ["a", "b"]),
        (#"{"stack.s":{"$ne":"baz","$eq":"bar"}}"#, ["b"]),
        (#"{"stack.s":{"$nin":["bar"]}}"#, ["c"]),
        (#"{"stack.n":{"$gte":4}}"#, ["b"]),
        (#"{"stack.n":{"$exists":false}}"#, ["a", "c"]),
        (#"{"stack.s":{"$regex":"^BA","$options":"i"}}"#, ["a", "b"]),
        (#"{"missing":{"$ne":1}}"#, ["a", "b", "c"]),
        (#"{}"#, ["a", "b", "c"]),
    ]

    static func inMemory(_ query: String) throws -> [String] {
        let matcher = try WhereMatcher(try #require(JSONValue.parse(query)?.objectValue))
        return objects.filter { matcher.matches($0.value) }.keys.sorted()
    }

    @Test func matchesInMemory() throws {
        for (query, expected) in Self.cases {
            #expect(try Self.inMemory(query) == expected, "\(query)")
        }
    }

    /// The indexed look-ups answer as comparing every pair would.
    @Test func indexedListsAnswerAsPairwiseComparison() {
        var random = SplitMix64(seed: 0x5EED_6001)
        let pool: [JSONValue] = [
            .null, .number(1), .number(-0.0), .number(0), .string("a"), .string("2026-01-01T00:00:00.000Z"),
            .string("2026-01-01T01:00:00+01:00"), .string("2026-01-01T00:00:00.0001Z"), .bool(true),
            .object(["__type": .string("Date"), "iso": .string("2026-01-01T00:00:00.000Z")]),
            .object(["__type": .string("Date"), "iso": .string("2026-01-01T00:00:00Z")]),
            .object(["__type": .string("Date"), "iso": .string("nope")]),
            .object(["__type": .string("Pointer"), "className": .string("A"), "objectId": .string("p1")]),
            .object(["__type": .string("Pointer"), "className": .string("B"), "objectId": .string("p1")]),
            .object(["__type": .string("Pointer"), "className": .string("A")]),
            .array([.string("a")]), .array([.number(1), .string("b")]), .object(["a": .number(1)]),
        ]
        func pick() -> JSONValue { pool[Int.random(in: 0..<pool.count, using: &random)] }
        for _ in 0..<3_000 {
            let list = (0..<Int.random(in: 0...5, using: &random)).map { _ in pick() }
            let value = Int.random(in: 0...4, using: &random) == 0 ? .array((0..<3).map { _ in pick() }) : pick()
            #expect(SameValues(list).containsSame(value) == list.contains { WhereMatcher.same(value, $0) }, "\(value) in \(list)")
            let field: JSONValue? = value.isNull ? nil : value
            #expect(Membership(list).contains(field) == list.contains { WhereMatcher.equals(field, $0) }, "\(value) in \(list)")
        }
    }

    /// 100,000 values against an Array field of 100,000 elements: one pass over each, not every pair.
    @Test func longListsAgainstLongArraysAreMatchedInOnePass() throws {
        let wanted = JSONValue.array((0..<100_000).map { .string("w\($0)") })
        let tags = JSONValue.array((0..<100_000).map { .string("t\($0)") } + [.string("w99999")])
        #expect(try WhereMatcher(["tags": .object(["$in": wanted])]).matches(["tags": tags]))
        #expect(!(try WhereMatcher(["tags": .object(["$all": wanted])]).matches(["tags": tags])))
        #expect(!(try WhereMatcher(["tags": .object(["$containedBy": wanted])]).matches(["tags": tags])))
        let stack = JSONValue.array((0..<100_000).map { .object(["tags": .array([.string("t\($0)")])]) })
        #expect(!(try WhereMatcher(["stack.tags": .object(["$all": wanted])]).matches(["stack": stack])))
        #expect(try WhereMatcher(["stack.tags": .object(["$nin": wanted])]).matches(["stack": stack]))
    }

    @Test(arguments: [
        (#"{"owner":{"$inQuery":{"where":{},"className":"Person"}}}"#, ParseError.Code.invalidQuery),
        (#"{"location":{"$nearSphere":{"__type":"GeoPoint","latitude":1,"longitude":2}}}"#, .invalidQuery),
        (#"{"name":{"$text":{"$search":{"$term":"x"}}}}"#, .invalidQuery),
        (#"{"$relatedTo":{"object":{"__type":"Pointer","className":"A","objectId":"b"},"key":"k"}}"#, .invalidQuery),
        (#"{"name":{"$foo":1}}"#, .invalidQuery),
        (#"{"ACL":{"*":{"read":true}}}"#, .invalidQuery),
        (#"{"bad name":1}"#, .invalidKeyName),
        (#"{"name":{"$in":"a"}}"#, .invalidJSON),
        (#"{"name":{"$regex":"("}}"#, .invalidQuery),
        (#"{"name":{"$regex":"^(a+)+\\1$"}}"#, .invalidQuery),
        (#"{"$or":{"a":1}}"#, .invalidQuery),
    ])
    func refusesWhatItCannotMatchWhenMade(query: String, code: ParseError.Code) throws {
        let clause = try #require(JSONValue.parse(query)?.objectValue)
        #expect(throws: ParseError.self) { _ = try WhereMatcher(clause) }
        do { _ = try WhereMatcher(clause) } catch { #expect(error.code == code, "\(query)") }
    }

    @Test(.enabled(if: ScratchDatabase.isConfigured, "needs PARSE_TEST_DATABASE_URL"))
    func picksWhatTheSQLTranslationPicks() async throws {
        try await ScratchDatabase.withPool("matcher", logger: Logger(service: "query-tests", level: .warning)) { pool in
            _ = try await pool.query("""
                CREATE TABLE objects ("objectId" text PRIMARY KEY, "createdAt" timestamptz, name text,
                                      votes double precision, tags jsonb, owner text, meta jsonb, stack jsonb)
                """)
            _ = try await pool.query("""
                INSERT INTO objects VALUES
                  ('a', '2026-01-01T00:00:00Z', 'Tom', 3, '["x","y"]', 'P1', '{"size":2}', '[{"s":"baz"},{"s":"bar"}]'),
                  ('b', '2026-09-01T00:00:00Z', 'tim', 10, '["y"]', 'P2', '{"size":5}', '[{"s":"bar","n":4}]'),
                  ('c', '2026-03-01T00:00:00Z', NULL, NULL, NULL, NULL, NULL, NULL)
                """)
            for (query, expected) in Self.cases {
                let translator = WhereTranslator()
                let clause = try #require(JSONValue.parse(query)?.objectValue)
                let condition = try await translator.translate(clause, TypedColumns(), alias: "t0")
                let rows = try await pool.query(
                    "SELECT \"objectId\" FROM objects AS t0 WHERE \(condition) ORDER BY \"objectId\"",
                    translator.parameters.values).rows
                #expect(rows.compactMap { $0["objectId"] } == expected, "\(query)")
                #expect(try Self.inMemory(query) == expected, "\(query)")
            }
        }
    }
}
