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

    @Test func relationsAreQueriedByTheirMembersOrWithRelatedTo() async throws {
        await #expect(throws: ParseError(.invalidQuery, "A Relation field is compared with Pointers only.")) {
            _ = try await WhereTranslator().translate(["friends": .string("x")], mapping(), alias: "t0")
        }
        let pointer = JSONValue.object(["__type": .string("Pointer"), "className": .string("Cat"), "objectId": .string("c1")])
        let translator = WhereTranslator()
        let member = try await translator.translate(["friends": pointer], mapping(), alias: "t0")
        #expect(member == #"t0."objectId" IN (SELECT "owningId" FROM classes."_Join:friends:Cat" WHERE "relatedId" = ANY($1::text[]))"#)
        #expect(translator.parameters.values.first??.postgresText == #"{"c1"}"#)
        // A class that does not exist has no relation: nothing is related.
        let related = try await WhereTranslator().translate(
            ["$relatedTo": .object(["object": .object(["__type": .string("Pointer"), "className": .string("Dog"),
                                                       "objectId": .string("d1")]), "key": .string("friends")])],
            mapping(), alias: "t0")
        #expect(related == "FALSE")
    }
}
