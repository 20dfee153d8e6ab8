import Contracts
import ParseWire
import Query
import Testing
@testable import PostsCore

struct ClassFieldMappingTests {
    let schema = ClassSchema(className: "Cat", fields: [
        "name": FieldType(.string), "friends": FieldType(.relation, targetClass: "Cat"), "meta": FieldType(.object),
    ])

    func mapping(_ identity: Identity = .master) -> ClassFieldMapping {
        ClassFieldMapping(schema: schema, identity: identity) { _ in nil }
    }

    @Test func nonMasterQueriesAreFilteredByReadPermission() {
        let translator = WhereTranslator()
        let filter = mapping(Identity(userId: "u1", roles: ["Admin"])).readFilter(alias: "t0", translator: translator)
        #expect(filter == #"(t0."_rperm" IS NULL OR t0."_rperm" && $1::text[])"#)
        #expect(translator.parameters.values.first??.postgresText == #"{"*","u1","role:Admin"}"#)
        #expect(mapping().readFilter(alias: "t0", translator: WhereTranslator()) == nil)
    }

    @Test func typedColumnsAndNestedPaths() async throws {
        let translator = WhereTranslator()
        let sql = try await translator.translate(["name": .string("Tom"), "meta.size": .number(3)], mapping(), alias: "t0")
        #expect(sql == #"(t0."meta" #> $1::text[]) = $2::jsonb AND t0."name" = $3"#)
    }

    @Test func relationsAreQueriedWithRelatedToOnly() async throws {
        await #expect(throws: ParseError(.invalidQuery, "Query a Relation field with $relatedTo.")) {
            _ = try await WhereTranslator().translate(["friends": .string("x")], mapping(), alias: "t0")
        }
        // A class that does not exist has no relation: nothing is related.
        let related = try await WhereTranslator().translate(
            ["$relatedTo": .object(["object": .object(["__type": .string("Pointer"), "className": .string("Dog"),
                                                       "objectId": .string("d1")]), "key": .string("friends")])],
            mapping(), alias: "t0")
        #expect(related == "FALSE")
    }
}
