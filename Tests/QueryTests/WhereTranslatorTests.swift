import ParseWire
import Testing
@testable import Query

/// A class stored as posts stores it: one typed column per field.
struct TypedColumns: FieldMapping {
    var fields: [String: FieldType] = [
        "objectId": FieldType(.string), "createdAt": FieldType(.date),
        "name": FieldType(.string), "votes": FieldType(.number), "tags": FieldType(.array),
        "owner": FieldType(.pointer, targetClass: "Person"), "meta": FieldType(.object),
    ]

    func column(_ name: String, alias: String, translator: WhereTranslator) throws(ParseError) -> QueryColumn? {
        fields[name].map { QueryColumn(sql: "\(alias).\(Names.quoted(name))", type: $0) }
    }
}

struct WhereTranslatorTests {
    func translate(_ json: String, _ mapping: any FieldMapping = TypedColumns()) async throws -> (String, [String?]) {
        let translator = WhereTranslator()
        let clause = try #require(JSONValue.parse(json)?.objectValue)
        let sql = try await translator.translate(clause, mapping, alias: "t0")
        return (sql, translator.parameters.values.map { $0?.postgresText })
    }

    @Test func valuesAreBoundNeverSpliced() async throws {
        let (sql, values) = try await translate(#"{"name":"x' OR 1=1 --"}"#)
        #expect(sql == #"t0."name" = $1"#)
        #expect(values == ["x' OR 1=1 --"])
    }

    @Test func comparisonsAndMembership() async throws {
        let (sql, _) = try await translate(#"{"votes":{"$gte":1,"$lt":5},"name":{"$in":["a","b"]}}"#)
        #expect(sql == #"(t0."name" IN ($1, $2)) AND (t0."votes" >= $3::double precision AND t0."votes" < $4::double precision)"#)
    }

    @Test func arrayEqualityMeansContains() async throws {
        let (sql, values) = try await translate(#"{"tags":"x"}"#)
        #expect(sql == #"t0."tags" @> $1::jsonb"#)
        #expect(values == [#"["x"]"#])
    }

    @Test func pointerEqualityComparesObjectIds() async throws {
        let (sql, values) = try await translate(#"{"owner":{"__type":"Pointer","className":"Person","objectId":"abc"}}"#)
        #expect(sql == #"t0."owner" = $1"#)
        #expect(values == ["abc"])
    }

    @Test func missingFieldsAreNullOnEveryRow() async throws {
        let (sql, _) = try await translate(#"{"nope":{"$ne":3}}"#)
        #expect(sql == "NOT COALESCE(NULL::double precision = $1::double precision, FALSE)")
    }

    @Test(arguments: [
        (#"{"name":{"$foo":1}}"#, ParseError.Code.invalidQuery),
        (#"{"ACL":{"*":{"read":true}}}"#, .invalidQuery),
        (#"{"bad name":1}"#, .invalidKeyName),
        (#"{"name\"; DROP TABLE x; --":1}"#, .invalidKeyName),
        (#"{"name":{"$in":"a"}}"#, .invalidJSON),
        (#"{"$or":{"a":1}}"#, .invalidQuery),
        (#"{"$nor":[]}"#, .invalidQuery),
        (#"{"name":{"$regex":"a","$options":"q"}}"#, .invalidQuery),
        (#"{"votes":{"$gt":"abc"}}"#, .incorrectType),
        (#"{"name":{"$nearSphere":{}}}"#, .invalidQuery),
    ])
    func badInputIsAParseError(json: String, code: ParseError.Code) async throws {
        do {
            _ = try await translate(json)
            Issue.record("expected an error for \(json)")
        } catch let error as ParseError {
            #expect(error.code == code, "\(json): \(error)")
        }
    }

    @Test func queryOptionsAcceptArraysAndCommaStrings() throws {
        let options = try QueryOptions(find: ["order": .array([.string("-votes"), .string("name")]), "include": .string("a,b.c"),
                                              "count": .string("true"), "limit": .number(0)])
        #expect(options.order == ["-votes", "name"])
        #expect(options.include == ["a", "b.c"])
        #expect(options.count)
        #expect(options.limit == 0)
        #expect(throws: ParseError(.invalidQuery, "Invalid parameter for query: foo")) {
            _ = try QueryOptions(find: ["foo": .number(1)])
        }
    }

    @Test func malformedWhereIsAnInvalidQuery() {
        #expect(throws: ParseError.self) { _ = try QueryOptions.merge(query: ["where": "{not json"], body: nil) }
    }
}
