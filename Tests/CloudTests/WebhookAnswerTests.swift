@testable import CloudCore
import Contracts
import ParseWire
import Testing

struct WebhookAnswerTests {
    @Test func successIsTheResult() throws {
        let answer = try WebhookAnswer.decode(Array(#"{"success":{"a":[1,2]}}"#.utf8)).get().value
        #expect(answer == .object(["a": .array([.number(1), .number(2)])]))
    }

    @Test func anEmptyBodyIsNoResult() throws {
        #expect(try WebhookAnswer.decode([]).get() == WebhookAnswer.Success())
        #expect(try WebhookAnswer.decode(Array("{}".utf8)).get() == WebhookAnswer.Success())
    }

    @Test func aFunctionMayChooseItsStatusAndHeaders() throws {
        let answer = try WebhookAnswer.decode(Array(#"{"success":1,"status":201,"headers":{"X-Request-Cost":"3"}}"#.utf8)).get()
        #expect(answer == WebhookAnswer.Success(value: .number(1), status: 201, headers: ["X-Request-Cost": "3"]))
        for bad in [#"{"success":1,"status":99}"#, #"{"success":1,"status":"201"}"#, #"{"success":1,"status":200.5}"#,
                    #"{"success":1,"headers":{"X-A":1}}"#, #"{"success":1,"headers":{"X-A":"a\r\nSet-Cookie: x"}}"#,
                    #"{"success":1,"headers":{"Bad Name":"a"}}"#, #"{"success":1,"headers":{"Content-Length":"1"}}"#,
                    #"{"success":1,"headers":["X-A"]}"#] {
            guard case .failure(let error) = WebhookAnswer.decode(Array(bad.utf8)) else {
                Issue.record("accepted \(bad)")
                continue
            }
            #expect(error.code == .scriptFailed, "\(bad)")
        }
    }

    @Test func anErrorMessageIsA141() {
        #expect(WebhookAnswer.decode(Array(#"{"error":"bad stuff happened"}"#.utf8))
                == .failure(ParseError(.scriptFailed, "bad stuff happened")))
    }

    @Test func anErrorWithACodeKeepsIt() {
        #expect(WebhookAnswer.decode(Array(#"{"error":{"code":142,"message":"name is required"}}"#.utf8))
                == .failure(ParseError(.validationError, "name is required")))
        #expect(WebhookAnswer.decode(Array(#"{"error":{"code":101,"error":"gone"}}"#.utf8))
                == .failure(ParseError(.objectNotFound, "gone")))
    }

    @Test func textThatIsNotJSONIsAMalformedResponse() {
        #expect(WebhookAnswer.decode(Array("<html>oops</html>".utf8)) == .failure(ParseError(.scriptFailed, "Malformed response")))
    }

    @Test func aBeforeSaveAnswerLosesTheFieldsParseServerDrops() {
        let result = WebhookAnswer.triggerResult(
            .object(["name": .string("Tom"), "createdAt": .string("x"), "updatedAt": .string("y"), "className": .string("Cat")]),
            for: .beforeSave)
        #expect(result == TriggerResult(object: .object(["name": .string("Tom")])))
    }

    @Test func otherAnswersChangeOnlyWhatTheirTriggerMayChange() {
        #expect(WebhookAnswer.triggerResult(.bool(true), for: .beforeSave) == TriggerResult())
        #expect(WebhookAnswer.triggerResult(.object(["where": .object([:])]), for: .beforeFind)
                == TriggerResult(query: .object(["where": .object([:])])))
        #expect(WebhookAnswer.triggerResult(.array([.object([:])]), for: .afterFind) == TriggerResult(objects: [.object([:])]))
        #expect(WebhookAnswer.triggerResult(.object(["x": .number(1)]), for: .afterSave) == TriggerResult())
    }
}
