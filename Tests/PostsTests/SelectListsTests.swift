import Query
import Testing
@testable import PostsCore

/// A schema's select lists are built once and shared by its copies, and never outlive the fields they name.
struct SelectListsTests {
    @Test func aFieldAddedAfterTheListWasBuiltIsSelected() {
        var schema = ClassSchema(className: "Cat", fields: ["name": FieldType(.string)])
        let before = ValueCodec.selectList(schema, table: "t0")
        let copy = schema
        schema.fields["born"] = FieldType(.date)
        let after = ValueCodec.selectList(schema, table: "t0")
        #expect(before.contains("t0.\"name\""))
        #expect(!before.contains("born"))
        #expect(after.contains("t0.\"born\""))
        // The copy taken before the change keeps its own fields and their list.
        #expect(ValueCodec.selectList(copy, table: "t0") == before)
    }

    @Test func eachTableAliasHasItsOwnList() {
        let schema = ClassSchema(className: "Cat", fields: ["name": FieldType(.string)])
        let aliased = ValueCodec.selectList(schema, table: "t0")
        let plain = ValueCodec.selectList(schema)
        #expect(aliased.contains("t0.\"name\""))
        #expect(plain.contains("\"name\"") && !plain.contains("t0."))
        #expect(ValueCodec.selectList(schema, table: "t0") == aliased)
    }
}
