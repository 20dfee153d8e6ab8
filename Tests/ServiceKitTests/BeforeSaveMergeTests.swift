import ParseWire
import ServiceKit
import Testing

struct BeforeSaveMergeTests {
    static func json(_ text: String) -> [String: JSONValue] { JSONValue.parse(text)?.objectValue ?? [:] }

    @Test func theTriggerSeesTheStoredObjectWithTheChangeApplied() {
        let original = Self.json(#"{"n":1,"tags":["a"],"gone":true,"keep":"k"}"#)
        let changes = Self.json(#"""
            {"n":{"__op":"Increment","amount":2},"tags":{"__op":"AddUnique","objects":["a","b"]},
             "gone":{"__op":"Delete"},"name":"x"}
            """#)
        #expect(BeforeSaveMerge.applying(changes, to: original)
                == Self.json(#"{"n":3,"tags":["a","b"],"keep":"k","name":"x"}"#))
        #expect(BeforeSaveMerge.applying(Self.json(#"{"list":{"__op":"Remove","objects":[1]}}"#),
                                         to: Self.json(#"{"list":[1,2,1]}"#)) == Self.json(#"{"list":[2]}"#))
    }

    @Test func onlyTheFieldsTheTriggerChangedReplaceTheClients() {
        let changes = Self.json(#"{"n":{"__op":"Increment","amount":1},"name":"tom"}"#)
        let given = Self.json(#"{"className":"Cat","objectId":"a1","n":4,"name":"tom"}"#)
        let answer = Self.json(#"{"className":"Dog","objectId":"zz","n":4,"name":"TOM","extra":true}"#)
        let merged = BeforeSaveMerge.merge(answer: answer, given: given, changes: changes)
        // The increment the trigger left alone stays an increment (so concurrent ones still add up).
        #expect(merged.changes == Self.json(#"{"n":{"__op":"Increment","amount":1},"name":"TOM","extra":true}"#))
        #expect(merged.changed == ["extra", "name"])
    }

    @Test func aFieldTheAnswerLeavesOutIsKept() {
        let changes = Self.json(#"{"a":1,"b":2}"#)
        let merged = BeforeSaveMerge.merge(answer: Self.json(#"{"a":1}"#), given: changes, changes: changes)
        #expect(merged.changes == changes)
        #expect(merged.changed.isEmpty)
    }

    @Test func theClientsAnswerNamesTheChangedFields() {
        let response = Self.json(#"{"objectId":"a1","createdAt":"2026-01-01T00:00:00.000Z"}"#)
        let changes = Self.json(#"{"name":"TOM","gone":{"__op":"Delete"},"n":{"__op":"Increment","amount":1}}"#)
        let answered = BeforeSaveMerge.answer(response, changed: ["gone", "n", "name"], changes: changes)
        #expect(answered == Self.json(#"""
            {"objectId":"a1","createdAt":"2026-01-01T00:00:00.000Z","name":"TOM","gone":{"__op":"Delete"}}
            """#))
    }
}
