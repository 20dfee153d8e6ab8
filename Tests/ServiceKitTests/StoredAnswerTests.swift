import Contracts
import ParseWire
@testable import ServiceKit
import Testing

/// The first answer of an idempotent write survives its trip through the `answer` column unchanged.
struct StoredAnswerTests {
    @Test func aResponseAndAnErrorReadBackAsWritten() throws {
        let response = RESTResponse(status: 201, headers: ["Location": "http://x/parse/classes/C/a\"b"],
                                    body: #"{"createdAt":"2026-12-01T00:00:00.000Z","objectId":"a\u00e9\n"}"#)
        let stored = try #require(StoredAnswer(text: StoredAnswer(.success(response)).text))
        #expect(stored.outcome == .success(response))
        let error = ParseError(.usernameTaken, "Account already exists for this username.")
        #expect(StoredAnswer(text: StoredAnswer(.failure(error)).text)?.outcome == .failure(error))
        #expect(StoredAnswer(text: "{}") == nil)
        #expect(StoredAnswer(text: "not json") == nil)
    }

    /// The text rows already hold, so answers stored before a release read back after it.
    @Test func theStoredTextKeepsItsForm() throws {
        let response = RESTResponse(status: 201, headers: ["Location": "http://x/parse/classes/C/a1", "A": "b"],
                                    body: #"{"objectId":"a1"}"#)
        let responseText = #"{"response":{"body":"{\"objectId\":\"a1\"}","headers":{"A":"b","Location":"http://x/parse/classes/C/a1"},"status":201}}"#
        #expect(StoredAnswer(.success(response)).text == responseText)
        #expect(StoredAnswer(text: responseText)?.outcome == .success(response))
        let errorText = #"{"code":202,"error":"Account already exists for this username."}"#
        let error = ParseError(.usernameTaken, "Account already exists for this username.")
        #expect(StoredAnswer(.failure(error)).text == errorText)
        #expect(StoredAnswer(text: errorText)?.outcome == .failure(error))
    }
}
