import Storage
import ParseWire
import Query
import Testing
@testable import PostsCore

struct FieldTypeTests {
    @Test func typesOfPlainValues() throws {
        #expect(try FieldType.of(.string("a")) == FieldType(.string))
        #expect(try FieldType.of(.number(1)) == FieldType(.number))
        #expect(try FieldType.of(.bool(true)) == FieldType(.boolean))
        #expect(try FieldType.of(.array([])) == FieldType(.array))
        #expect(try FieldType.of(.object(["a": .number(1)])) == FieldType(.object))
        #expect(try FieldType.of(.null) == nil)
    }

    @Test func typesOfParseValues() throws {
        let pointer = JSONValue.object(["__type": .string("Pointer"), "className": .string("Cat"), "objectId": .string("x")])
        #expect(try FieldType.of(pointer) == FieldType(.pointer, targetClass: "Cat"))
        #expect(try FieldType.of(.object(["__type": .string("Date"), "iso": .string("2020-01-01T00:00:00.000Z")])) == FieldType(.date))
        #expect(try FieldType.of(.object(["__op": .string("Increment"), "amount": .number(1)])) == FieldType(.number))
        #expect(try FieldType.of(.object(["__op": .string("AddUnique"), "objects": .array([])])) == FieldType(.array))
        #expect(try FieldType.of(.object(["__op": .string("Delete")])) == nil)
        let relation = JSONValue.object(["__op": .string("AddRelation"), "objects": .array([pointer])])
        #expect(try FieldType.of(relation) == FieldType(.relation, targetClass: "Cat"))
    }

    @Test func pointerTypesPrintTheirClass() {
        #expect(FieldType(.pointer, targetClass: "Cat").description == "Pointer<Cat>")
    }

    @Test func aMismatchIsCode111WithParseServersMessage() {
        let schema = ClassSchema(className: "Cat", fields: ["votes": FieldType(.number)])
        #expect(throws: ParseError(.incorrectType, "schema mismatch for Cat.votes; expected Number but got String")) {
            _ = try SchemaStore.missing(["votes": FieldType(.string)], in: schema)
        }
        #expect((try? SchemaStore.missing(["name": FieldType(.string)], in: schema))?.keys.sorted() == ["name"])
    }

    @Test func aclBecomesReadersAndWriters() throws {
        let acl = JSONValue.object(["*": .object(["read": .bool(true)]),
                                    "u1": .object(["read": .bool(true), "write": .bool(true)]),
                                    "u2": .object(["write": .bool(false)])])
        let permissions = try AccessControl.permissions(fromACL: acl)
        #expect(permissions.read == ["*", "u1"])
        #expect(permissions.write == ["u1"])
        #expect(throws: ParseError(.invalidACL, "Invalid ACL.")) { _ = try AccessControl.permissions(fromACL: .string("x")) }
        #expect(AccessControl.acl(read: nil, write: nil) == nil)
    }

    @Test func arrayLiteralsQuoteEveryElement() {
        #expect(PostgresArray.literal(["*", "a\"b", "c\\d", "role:x,y"]) == #"{"*","a\"b","c\\d","role:x,y"}"#)
    }
}
