@testable import AuthCore
import ParseWire
import Query
import Testing

/// How `where` reaches auth's tables: fixed columns, the `fields` document, and the fields no query may touch.
struct AuthQueryMappingTests {
    func translate(_ json: String, _ mapping: any FieldMapping) async throws -> (String, [String?]) {
        let translator = WhereTranslator()
        let clause = try #require(JSONValue.parse(json)?.objectValue)
        let sql = try await translator.translate(clause, mapping, alias: "t0")
        return (sql, translator.parameters.values.map { $0?.postgresText })
    }

    @Test func fixedColumnsAndCustomFields() async throws {
        let (sql, values) = try await translate(#"{"username":{"$regex":"^al","$options":"i"},"age":{"$gte":21}}"#,
                                                UserFieldMapping(isMaster: false))
        #expect(sql == #"(NULLIF(t0.fields -> $1, 'null'::jsonb) >= $2::jsonb AND jsonb_typeof(NULLIF(t0.fields -> $1, 'null'::jsonb)) = jsonb_typeof($2::jsonb)) AND t0.username ~* $3"#)
        #expect(values == ["age", "21", "^al"])
    }

    @Test func customArraysMatchTheirElements() async throws {
        let (sql, values) = try await translate(#"{"tags":"red"}"#, RoleFieldMapping())
        #expect(sql == #"(NULLIF(t0.fields -> $1, 'null'::jsonb) = $2::jsonb OR (jsonb_typeof(NULLIF(t0.fields -> $1, 'null'::jsonb)) = 'array' AND NULLIF(t0.fields -> $1, 'null'::jsonb) @> jsonb_build_array($2::jsonb)))"#)
        #expect(values == ["tags", #""red""#])
    }

    @Test func secretsAndProtectedFieldsAreRefused() async throws {
        for key in ["password", "sessionToken", "authData"] {
            await #expect(throws: ParseError(.invalidKeyName, "Invalid key name: \(key)")) {
                _ = try await translate(#"{"$or":[{"\#(key)":{"$exists":true}}]}"#, UserFieldMapping(isMaster: true))
            }
        }
        await #expect(throws: ParseError(.operationForbidden, "This user is not allowed to query email on class _User")) {
            _ = try await translate(#"{"email":{"$regex":"@example"}}"#, UserFieldMapping(isMaster: false))
        }
        let (sql, _) = try await translate(#"{"email":{"$regex":"@example"}}"#, UserFieldMapping(isMaster: true))
        #expect(sql == "t0.email ~ $1")
        await #expect(throws: ParseError.self) {
            _ = try await translate(#"{"name":{"$inQuery":{"className":"_User","where":{}}}}"#, RoleFieldMapping())
        }
    }

    @Test func roleRelationsReadAsPointerArrays() async throws {
        let (sql, values) = try await translate(#"{"users":{"__type":"Pointer","className":"_User","objectId":"u1"}}"#,
                                                RoleFieldMapping())
        #expect(sql.hasPrefix("(SELECT jsonb_agg(jsonb_build_object('__type', 'Pointer', 'className', '_User', 'objectId', member.user_id)) FROM role_users AS member WHERE member.role_id = t0.id) @> $1::jsonb"))
        #expect(values == [#"[{"__type":"Pointer","className":"_User","objectId":"u1"}]"#])
    }

    @Test func sessionsPointToTheirUser() async throws {
        let (sql, values) = try await translate(#"{"user":{"$in":[{"__type":"Pointer","className":"_User","objectId":"u1"}]}}"#,
                                                SessionFieldMapping())
        #expect(sql == "(t0.user_id = ANY($1::text[]))")
        #expect(values == [#"{"u1"}"#])
    }
}
