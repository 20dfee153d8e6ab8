import Foundation
import Runtime
import Testing

/// The one JSON string writer, shared by the log lines and `JSONText`.
@Suite struct JSONEscapingTests {
    static func quote(_ text: String) -> String {
        var bytes: [UInt8] = []
        JSONEscaping.write(text, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test(arguments: [
        ("plain", #""plain""#),
        ("", #""""#),
        (#"say "hi""#, #""say \"hi\"""#),
        (#"C:\dir"#, #""C:\\dir""#),
        ("a\nb\rc\td", #""a\nb\rc\td""#),
        ("\u{0}\u{1}\u{8}\u{1F}", #""\u0000\u0001\u0008\u001f""#),
        ("café ✓ 🐈", "\"café ✓ 🐈\""),
        ("a/b", #""a/b""#),
        ("\u{7F}", "\"\u{7F}\""),
    ])
    func quotes(text: String, expected: String) {
        #expect(Self.quote(text) == expected)
    }

    @Test(arguments: ["tab\there", "\u{1B}[31mred\u{1B}[0m", #"\"mixed"\"#, "line\u{2028}sep", "🐈‍⬛ \u{0}"])
    func decodesBackToTheOriginal(text: String) throws {
        let decoded = try JSONDecoder().decode(String.self, from: Data(Self.quote(text).utf8))
        #expect(decoded == text)
    }
}
