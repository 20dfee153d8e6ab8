import Foundation
import Runtime
import Testing

@Suite struct JSONStringTests {
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
        #expect(JSONString.quote(text) == expected)
    }

    @Test(arguments: ["tab\there", "\u{1B}[31mred\u{1B}[0m", #"\"mixed"\"#, "line\u{2028}sep", "🐈‍⬛ \u{0}"])
    func decodesBackToTheOriginal(text: String) throws {
        let decoded = try JSONDecoder().decode(String.self, from: Data(JSONString.quote(text).utf8))
        #expect(decoded == text)
    }
}
