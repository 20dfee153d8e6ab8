import Foundation
import Testing
@testable import ParseWire

@Suite struct ParseErrorTests {
    @Test func encodesExactlyCodeThenError() throws {
        let body = ParseErrorBody.json(ParseError(.objectNotFound, "Object not found."))
        #expect(String(decoding: body, as: UTF8.self) == #"{"code":101,"error":"Object not found."}"#)
    }

    @Test func keepsSlashesUnescaped() {
        let body = ParseErrorBody.json(ParseError(.invalidClassName, "Invalid class name: a/b"))
        #expect(String(decoding: body, as: UTF8.self) == #"{"code":103,"error":"Invalid class name: a/b"}"#)
    }

    @Test func decodesBackToTheSameError() throws {
        let original = ParseError(.invalidSessionToken, "Invalid session token")
        let decoded = try JSONDecoder().decode(ParseError.self, from: Data(ParseErrorBody.json(original)))
        #expect(decoded == original)
        #expect(decoded.code.rawValue == 209)
        #expect(decoded.message == "Invalid session token")
    }

    /// Messages carry what clients sent (class and field names, regex text): every one must stay valid JSON.
    @Test(arguments: ["quote \" backslash \\ tab \t newline \n", "nul \u{0} bell \u{7} esc \u{1B}", "héllo 猫 🐈 \u{2028}", "", "-1"])
    func writesAnyMessageAsValidJSON(_ message: String) throws {
        let original = ParseError(.invalidJSON, message)
        let decoded = try JSONDecoder().decode(ParseError.self, from: Data(ParseErrorBody.json(original)))
        #expect(decoded == original)
        let bare = try JSONDecoder().decode([String: String].self, from: Data(ParseErrorBody.bare(message)))
        #expect(bare == ["error": message])
    }

    @Test func decodesWhatParseServerWrites() throws {
        let text = #"{"error":"Invalid JSON","code":107}"#
        let decoded = try JSONDecoder().decode(ParseError.self, from: Data(text.utf8))
        #expect(decoded == ParseError(.invalidJSON, "Invalid JSON"))
    }

    @Test func encodesThroughAPlainEncoderWithTheSameKeys() throws {
        let data = try JSONEncoder().encode(ParseError(.timeout, "late"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["code", "error"])
        #expect(object["code"] as? Int == 124)
        #expect(object["error"] as? String == "late")
    }

    @Test(arguments: [
        (1, 500), (101, 404), (124, 504), (100, 503),
        (-1, 400), (102, 400), (107, 400), (108, 400), (119, 400), (141, 400), (209, 400),
    ])
    func httpStatusFollowsTheCode(code: Int, status: Int) {
        #expect(ParseError(ParseError.Code(rawValue: code), "x").httpStatus == status)
    }

    @Test func internalErrorHidesDetails() {
        #expect(ParseError.internalError.code == .internalServerError)
        #expect(ParseError.internalError.message == "Internal server error.")
        #expect(ParseError.internalError.httpStatus == 500)
    }

    @Test func descriptionNamesCodeAndMessage() {
        #expect(ParseError(.invalidQuery, "bad where").description == "ParseError(102): bad where")
    }

    @Test func bareBodyHasOnlyTheMessage() {
        #expect(String(decoding: ParseErrorBody.bare("unauthorized"), as: UTF8.self) == #"{"error":"unauthorized"}"#)
        #expect(String(decoding: ParseErrorBody.bare("a/b \"q\""), as: UTF8.self) == #"{"error":"a/b \"q\""}"#)
    }
}
