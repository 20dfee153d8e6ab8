import Foundation
import ParseWire
import Testing
@testable import GatewayCore

@Suite struct JSONBodyTests {
    private func parse(_ text: String) throws(ParseError) -> JSONBody {
        try JSONBody(Array(text.utf8))
    }

    private func object(_ payload: String?) throws -> [String: Any] {
        let text = try #require(payload)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test(arguments: ["", " ", "\n\t\r "])
    func emptyBodyHasNoPayload(text: String) throws {
        let body = try parse(text)
        #expect(body.payload == nil)
        #expect(body.envelope.isEmpty)
    }

    @Test(arguments: ["[1,2]", "[]", #""text""#, "42", "null", "true"])
    func jsonThatIsNotAnObjectIsInvalid(text: String) {
        #expect(throws: ParseError(.invalidJSON, "Invalid JSON")) { try parse(text) }
    }

    @Test(arguments: ["{", "{\"a\":}", "not json", "{'a':1}", "{\"a\":1} trailing", "\u{FF}"])
    func malformedJSONIsInvalid(text: String) {
        #expect(throws: ParseError(.invalidJSON, "Invalid JSON")) { try parse(text) }
    }

    @Test func invalidJSONErrorHasCode107() throws {
        do {
            _ = try parse("[")
            Issue.record("expected an error")
        } catch {
            #expect(error.code.rawValue == 107)
            #expect(error.httpStatus == 400)
        }
    }

    @Test func bodyWithoutEnvelopeIsPassedOnUnchanged() throws {
        let text = #"{ "name" : "Tom", "url": "a/b", "n": 1.50 }"#
        let body = try parse(text)
        #expect(body.payload == text)
        #expect(body.envelope.isEmpty)
    }

    @Test func envelopeFieldsAreTakenOut() throws {
        let body = try parse(#"{"_method":"GET","_ApplicationId":"app","_SessionToken":"r:abc","name":"Tom"}"#)
        #expect(body.envelope == ["_method": "GET", "_ApplicationId": "app", "_SessionToken": "r:abc"])
        let payload = try object(body.payload)
        #expect(Set(payload.keys) == ["name"])
        #expect(payload["name"] as? String == "Tom")
    }

    @Test func everyEnvelopeFieldIsRemoved() throws {
        var fields: [String: String] = ["keep": "me"]
        for key in JSONBody.envelopeFields { fields[key] = "v-\(key)" }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
        let body = try parse(text)
        #expect(Set(try object(body.payload).keys) == ["keep"])
        #expect(Set(body.envelope.keys) == JSONBody.envelopeFields)
        #expect(body.envelope["_MasterKey"] == "v-_MasterKey")
    }

    @Test func envelopeFieldsThatAreNotStringsAreDroppedFromBoth() throws {
        let body = try parse(#"{"_context":{"a":1},"_RevocableSession":"1","score":3}"#)
        #expect(body.envelope == ["_RevocableSession": "1"])
        let payload = try object(body.payload)
        #expect(Set(payload.keys) == ["score"])
        #expect(payload["score"] as? Int == 3)
    }

    @Test func onlyEnvelopeLeavesAnEmptyObject() throws {
        let body = try parse(#"{"_method":"DELETE"}"#)
        #expect(body.envelope == ["_method": "DELETE"])
        #expect(body.payload == "{}")
    }

    @Test func reencodedPayloadKeepsSlashesAndNesting() throws {
        let body = try parse(#"{"_method":"PUT","url":"http://x/y","tags":["a","b"],"where":{"n":{"$gt":1}}}"#)
        let payload = try #require(body.payload)
        #expect(payload.contains("http://x/y"))
        let decoded = try object(payload)
        #expect(decoded["tags"] as? [String] == ["a", "b"])
        #expect(((decoded["where"] as? [String: Any])?["n"] as? [String: Any])?["$gt"] as? Int == 1)
    }

    @Test func underscoreFieldsOutsideTheEnvelopeStay() throws {
        let body = try parse(#"{"_method":"GET","_other":"x","__type":"Pointer"}"#)
        #expect(Set(try object(body.payload).keys) == ["_other", "__type"])
    }
}
