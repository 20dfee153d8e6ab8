import ParseWire
import Testing
@testable import Query

/// A class stored as posts stores it: one typed column per field.
struct TypedColumns: FieldMapping {
    var fields: [String: FieldType] = [
        "objectId": FieldType(.string), "createdAt": FieldType(.date),
        "name": FieldType(.string), "votes": FieldType(.number), "tags": FieldType(.array),
        "owner": FieldType(.pointer, targetClass: "Person"), "meta": FieldType(.object), "stack": FieldType(.array),
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
        #expect(sql == #"(t0."name" = ANY($1::text[])) AND (t0."votes" >= $2::double precision AND t0."votes" < $3::double precision)"#)
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
        // parse-server validates the point first: not a GeoPoint is a 107, whatever the field.
        (#"{"name":{"$nearSphere":{}}}"#, .invalidJSON),
        (#"{"name":{"$nearSphere":{"__type":"GeoPoint","latitude":1,"longitude":2}}}"#, .invalidQuery),
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

/// Custom fields kept in a `jsonb` document (as auth keeps them), beside one fixed column.
struct DocumentFields: FieldMapping {
    func column(_ name: String, alias: String, translator: WhereTranslator) throws(ParseError) -> QueryColumn? {
        if name == "username" { return QueryColumn(sql: "\(alias).username", type: FieldType(.string)) }
        return .schemaless(document: "\(alias).fields", key: translator.bind(name))
    }
}

struct SchemalessTranslationTests {
    func translate(_ json: String) async throws -> (String, [String?]) {
        let translator = WhereTranslator()
        let clause = try #require(JSONValue.parse(json)?.objectValue)
        let sql = try await translator.translate(clause, DocumentFields(), alias: "t0")
        return (sql, translator.parameters.values.map { $0?.postgresText })
    }

    let field = "NULLIF(t0.fields -> $1, 'null'::jsonb)"

    @Test func comparisonsHoldBetweenValuesOfOneType() async throws {
        let (sql, values) = try await translate(#"{"age":{"$lt":30}}"#)
        #expect(sql == "(\(field) < $2::jsonb AND jsonb_typeof(\(field)) = jsonb_typeof($2::jsonb))")
        #expect(values == ["age", "30"])
    }

    @Test func membershipLooksInsideArrays() async throws {
        let (sql, values) = try await translate(#"{"tag":{"$in":["a",null]}}"#)
        #expect(sql == "(\(field) IN (SELECT wanted.value FROM jsonb_array_elements($2::jsonb) AS wanted(value)) OR (jsonb_typeof(\(field)) = 'array' AND EXISTS (SELECT 1 FROM jsonb_array_elements($2::jsonb) AS wanted(value) WHERE \(field) @> jsonb_build_array(wanted.value))) OR \(field) IS NULL)")
        #expect(values == ["tag", #"["a"]"#])
    }

    @Test func regexReadsStringsOnly() async throws {
        let (sql, _) = try await translate(#"{"nick":{"$regex":"^a","$options":"im"}}"#)
        #expect(sql == "(jsonb_typeof(\(field)) = 'string' AND (\(field) #>> '{}') ~* $2)")
    }

    @Test func dottedPathsStaySchemaless() async throws {
        let (sql, values) = try await translate(#"{"meta.size":{"$exists":true}}"#)
        #expect(sql == "NULLIF(\(field) #> $2::text[], 'null'::jsonb) IS NOT NULL")
        #expect(values == ["meta", "{\"size\"}"])
    }

    @Test func norKeepsRowsWhereTheFieldIsMissing() async throws {
        let (sql, _) = try await translate(#"{"$nor":[{"username":"a"}]}"#)
        #expect(sql == "NOT COALESCE((t0.username = $1), FALSE)")
    }

    @Test func orderTermsGoThroughTheMapping() throws {
        let translator = WhereTranslator()
        #expect(try translator.orderTerms(["-username", "age"], DocumentFields(), alias: "t0")
                == ["t0.username DESC", "\(field) ASC"])
        #expect(throws: ParseError(.invalidKeyName, "Invalid field name: a;b.")) {
            _ = try WhereTranslator().orderTerms(["a;b"], DocumentFields(), alias: "t0")
        }
    }

    @Test func projectionKeepsTheSystemFields() throws {
        let options = try QueryOptions(find: ["keys": .string("nick,meta.size"), "excludeKeys": .string("objectId,meta")])
        let object: [String: JSONValue] = ["objectId": .string("x"), "nick": .string("n"), "meta": .object([:]), "age": .number(3)]
        #expect(options.project(object) == ["objectId": .string("x"), "nick": .string("n")])
    }
}
