import ParseWire
@testable import PostsCore
import Query
import Testing

/// What the `schema` option's definitions change in a class, as parse-server's `DefinedSchemas` decides it.
struct DefinedSchemasTests {
    static let definition: [String: JSONValue] = [
        "className": .string("Cat"),
        "fields": .object(["name": .object(["type": .string("String")]), "age": .object(["type": .string("Number")]),
                           "owner": .object(["type": .string("Pointer"), "targetClass": .string("_User")])]),
        "indexes": .object(["name_1": .object(["name": .number(1)])]),
        "classLevelPermissions": .object(["find": .object(["*": .bool(true)])]),
    ]

    @Test func aNewClassGetsEverythingAndNoClientMayAddFields() throws {
        var warnings: [String] = []
        let bodies = try DefinedSchemas.plan(Self.definition, current: nil, options: SchemaOptions(definitions: []),
                                             warnings: &warnings)
        #expect(bodies.count == 1 && warnings.isEmpty)
        #expect(bodies[0]["fields"]?.objectValue?.keys.sorted() == ["age", "name", "owner"])
        #expect(bodies[0]["fields"]?["owner"] == .object(["type": .string("Pointer"), "targetClass": .string("_User")]))
        #expect(bodies[0]["indexes"] == .object(["name_1": .object(["name": .number(1)])]))
        #expect(bodies[0]["classLevelPermissions"] == .object(["find": .object(["*": .bool(true)]), "addField": .object([:])]))
    }

    static let current = ClassSchema(className: "Cat", fields: ["name": FieldType(.string), "age": FieldType(.string),
                                                                "color": FieldType(.string)],
                                     indexes: ["_id_": .object(["_id": .number(1)]), "color_1": .object(["color": .number(1)])])

    @Test func changesAreLoggedUnlessTheSwitchesSayOtherwise() throws {
        var warnings: [String] = []
        let bodies = try DefinedSchemas.plan(Self.definition, current: Self.current,
                                             options: SchemaOptions(definitions: [], strict: true), warnings: &warnings)
        #expect(bodies.count == 1)
        #expect(bodies[0]["fields"]?.objectValue?.keys.sorted() == ["owner"])
        #expect(bodies[0]["indexes"] == .object(["name_1": .object(["name": .number(1)]),
                                                 "color_1": .object(["__op": .string("Delete")])]))
        #expect(warnings.count == 2)
        #expect(warnings.contains { $0.contains("\"age\"") && $0.contains("\"Number\"") && $0.contains("\"String\"") })
        #expect(warnings.contains { $0.contains("missing in the schema") && $0.contains("color") })
    }

    @Test func recreatedAndDeletedFieldsWithTheSwitches() throws {
        var warnings: [String] = []
        let options = SchemaOptions(definitions: [], deleteExtraFields: true, recreateModifiedFields: true)
        let bodies = try DefinedSchemas.plan(Self.definition, current: Self.current, options: options, warnings: &warnings)
        #expect(warnings.isEmpty && bodies.count == 2)
        #expect(bodies[0]["fields"]?["age"] == .object(["__op": .string("Delete")]))
        #expect(bodies[0]["fields"]?["color"] == .object(["__op": .string("Delete")]))
        #expect(bodies[1]["fields"] == .object(["age": .object(["type": .string("Number")])]))
    }

    @Test func aFieldThatCannotBeMadeNamesItsClassAndField() {
        var warnings: [String] = []
        let bad: [String: JSONValue] = ["className": .string("Cat"),
                                        "fields": .object(["age": .object(["type": .string("Nmber")])])]
        #expect(throws: DefinedSchemas.Failure.self) {
            try DefinedSchemas.plan(bad, current: nil, options: SchemaOptions(definitions: []), warnings: &warnings)
        }
        do {
            _ = try DefinedSchemas.plan(bad, current: nil, options: SchemaOptions(definitions: []), warnings: &warnings)
        } catch {
            #expect("\(error)" == "schema.definitions: Cat.age: invalid field type: Nmber")
        }
    }
}
