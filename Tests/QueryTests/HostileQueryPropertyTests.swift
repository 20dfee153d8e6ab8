import Foundation
import ParseWire
import TestDoubles
import Testing
@testable import Query

/// Generated hostile where clauses, from fixed seeds, at the query compiler (the SQL side, posts and auth) and at
/// the matcher (the in-memory side, live): each compiles or is refused with a Parse error, and none stops the
/// process.
struct HostileQueryPropertyTests {
    /// A class with a field of every type, as posts stores it.
    struct EveryType: FieldMapping {
        let fields: [String: FieldType] = [
            "objectId": FieldType(.string), "createdAt": FieldType(.date), "name": FieldType(.string),
            "votes": FieldType(.number), "tags": FieldType(.array), "owner": FieldType(.pointer, targetClass: "Person"),
            "meta": FieldType(.object), "when": FieldType(.date), "where": FieldType(.geoPoint),
            "area": FieldType(.polygon), "done": FieldType(.boolean), "photo": FieldType(.file), "raw": FieldType(.bytes),
        ]

        func column(_ name: String, alias: String, translator: WhereTranslator) throws(ParseError) -> QueryColumn? {
            fields[name].map { QueryColumn(sql: "\(alias).\(Names.quoted(name))", type: $0) }
        }
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func everyClauseCompilesOrIsAParseError(seed: UInt64) async {
        var hostile = HostileJSON(seed: seed)
        let fields = Array(EveryType().fields.keys) + ["missing", "meta.a.b", "tags.0"]
        var refused = 0, compiled = 0
        for _ in 0..<1_500 {
            guard let clause = hostile.whereClause(fields: fields).objectValue else { continue }
            do {
                let translator = WhereTranslator()
                _ = try await translator.translate(clause, EveryType(), alias: "t0")
                // The values as they are sent to PostgreSQL: a date too far off once trapped here.
                _ = translator.parameters.values.map { $0?.postgresText }
                compiled += 1
            } catch is ParseError {
                refused += 1
            } catch {
                Issue.record("\(clause.debugDescription): \(error)")
            }
        }
        #expect(compiled + refused == 1_500)
    }

    /// Every comparison of a date field with every hostile date, relative or absolute, sent as PostgreSQL gets it.
    @Test func everyDateComparisonCompilesOrIsAParseError() async {
        for field in ["createdAt", "when", "name"] {
            for op in ["$lt", "$lte", "$gt", "$gte", "$ne", "$eq"] {
                for text in HostileJSON.strings {
                    for operand in [JSONValue.object(["$relativeTime": .string(text)]),
                                    .object(["__type": .string("Date"), "iso": .string(text)])] {
                        let translator = WhereTranslator()
                        do {
                            _ = try await translator.translate([field: .object([op: operand])], EveryType(), alias: "t0")
                            _ = translator.parameters.values.map { $0?.postgresText }
                        } catch is ParseError {
                        } catch {
                            Issue.record("\(field) \(op) \(operand): \(error)")
                        }
                    }
                }
            }
        }
    }

    @Test(arguments: [21, 22] as [UInt64])
    func everyClauseIsMatchedLiveOrIsAParseError(seed: UInt64) {
        var hostile = HostileJSON(seed: seed)
        for _ in 0..<1_500 {
            guard let clause = hostile.whereClause().objectValue else { continue }
            guard let matcher = try? WhereMatcher(clause) else { continue }
            for _ in 0..<3 {
                var object: [String: JSONValue] = [:]
                for field in ["name", "votes", "tags", "owner", "when", "where", "meta"] where hostile.chance(70) {
                    object[field] = hostile.value(depth: 2)
                }
                _ = matcher.matches(object)
            }
        }
    }

    @Test func optionsAndRelativeTimesAreReadOrRefused() {
        var hostile = HostileJSON(seed: 31)
        for _ in 0..<2_000 {
            var options: [String: JSONValue] = [:]
            for key in ["where", "limit", "skip", "order", "keys", "include", "count", "excludeKeys", "hint", "explain"]
            where hostile.chance(40) {
                options[key] = hostile.value(depth: 2)
            }
            _ = try? QueryOptions(find: options)
            _ = try? QueryOptions(get: options)
        }
        for text in HostileJSON.strings {
            _ = RelativeTime.date(text)
            _ = try? RegexPattern(text, options: hostile.pick(["", "i", "imxs", "q"]))
        }
        #expect(throws: ParseError.self) {
            try RelativeTime.date(operand: .string("in 300000000 years"), op: "$gt")
        }
    }

    /// `$skip` stages add up: enough of the largest accepted ones pass what an `Int` holds, and are refused.
    @Test func manyLargeSkipStagesAreRefusedNotSummedPastAnInt() async throws {
        var pipeline = AggregatePipeline(table: "t", columns: [])
        var refusal: ParseError?
        for _ in 0..<20_000 {
            do {
                try await pipeline.apply("$skip", .number(9e14), mapping: EveryType())
            } catch let error as ParseError {
                refusal = error
                break
            }
        }
        #expect(refusal?.code == .invalidQuery)
    }
}
