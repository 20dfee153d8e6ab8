import ParseWire
import Testing
@testable import LiveCore

/// The validator's wording for parse-server's `RequestSchema`, case by case.
struct LiveRequestSchemaTests {
    @Test(arguments: [
        (#"{"op":"connect","applicationId":"a"}"#, LiveRequestSchema.Verdict.success("connect")),
        (#"{"op":"subscribe","requestId":1,"query":{"className":"Cat","where":{}}}"#, .success("subscribe")),
        (#"{"op":"update","requestId":1,"query":{"className":"Cat","where":{},"keys":["a"]}}"#, .success("update")),
        (#"{"op":"unsubscribe","requestId":1}"#, .success("unsubscribe")),
        (#"[]"#, .failure("Invalid type: array (expected object)")),
        (#"{}"#, .failure("Missing required property: op")),
        (#"{"op":1}"#, .failure("Invalid type: number (expected string)")),
        (#"{"op":"nope"}"#, .failure(#"No enum match for: "nope""#)),
        (#"{"op":"connect"}"#, .failure("Missing required property: applicationId")),
        (#"{"op":"connect","applicationId":"a","extra":1}"#, .failure("Additional properties not allowed")),
        (#"{"op":"connect","applicationId":"a","sessionToken":5}"#, .failure("Invalid type: number (expected string)")),
        (#"{"op":"subscribe","query":{"className":"Cat","where":{}}}"#, .failure("Missing required property: requestId")),
        (#"{"op":"subscribe","requestId":"1","query":{"className":"Cat","where":{}}}"#,
         .failure("Invalid type: string (expected number)")),
        (#"{"op":"subscribe","requestId":1,"query":{"className":"Cat"}}"#, .failure("Missing required property: where")),
        (#"{"op":"subscribe","requestId":1,"query":{"className":"Cat","where":{},"keys":[]}}"#,
         .failure("Array is too short (0), minimum 1")),
        (#"{"op":"subscribe","requestId":1,"query":{"className":"Cat","where":{},"keys":["a","a"]}}"#,
         .failure("Array items are not unique (indices 0 and 1)")),
        (#"{"op":"unsubscribe"}"#, .failure("Missing required property: requestId")),
    ])
    func validates(message: String, verdict: LiveRequestSchema.Verdict) throws {
        let value = try #require(JSONValue.parse(message))
        #expect(LiveRequestSchema.validate(value) == verdict)
    }

    /// A message as large as live takes (1 MB) holds 150,000 keys: checking that they are unique is one pass.
    @Test func aMessageFullOfKeysIsCheckedInOnePass() {
        let keys = (0..<150_000).map { JSONValue.string("k\($0)") }
        func message(_ keys: [JSONValue]) -> JSONValue {
            .object(["op": .string("subscribe"), "requestId": .number(1),
                     "query": .object(["className": .string("Cat"), "where": .object([:]), "keys": .array(keys)])])
        }
        #expect(LiveRequestSchema.validate(message(keys)) == .success("subscribe"))
        #expect(LiveRequestSchema.validate(message(keys + [.string("k7")])) == .failure("Array items are not unique (indices 7 and 150000)"))
    }
}
