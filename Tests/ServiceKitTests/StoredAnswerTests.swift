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
}
